package config

import (
	"maps"
	"testing"
)

func TestPartialWeightsKeepDefaults(t *testing.T) {
	c, err := Parse([]byte("global:\n  collector_weights: {visitors: 9}\nkeys: [{name: a, api_key_env: K}]\nprojects: [{id: p, collectors: [visitors, pageviews]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(DefaultGlobal.CollectorWeights)
	want["visitors"] = 9
	if !maps.Equal(c.Global.CollectorWeights, want) {
		t.Fatalf("weights %+v, want %+v", c.Global.CollectorWeights, want)
	}
	for _, bad := range []string{
		"keys: [{name: a, api_key_env: K}]\nprojects: [{id: p, collectors: [pagviews]}]\n",
		"keys: [{name: a, api_key_env: K}]\nprojects: [{id: p, collectors: [visitors, visitors]}]\n",
		"global: {collector_weights: {feedback: 0}}\nkeys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n",
		"global: {collector_weights: {feedbak: 1}}\nkeys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n",
		"global: {search_top_n: 500}\nkeys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n",
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	if DefaultGlobal.CollectorWeights["visitors"] != 2 {
		t.Errorf("parsing changed the default weights: %v", DefaultGlobal.CollectorWeights)
	}
}
