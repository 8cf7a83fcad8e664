package config

import (
	"maps"
	"strings"
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

// TestCollectorTopNAndLookBack: collector_top_n sets a collector's top
// lists and leaves the others at the table's default; a collector without
// top lists, a length out of 1..MaxTopN and a look-back out of 1d..366d
// are refused with the field named.
func TestCollectorTopNAndLookBack(t *testing.T) {
	c, err := Parse([]byte("global: {collector_top_n: {conversations: 7}, feedback_look_back: 30d}\nkeys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Global.TopN("conversations") != 7 || c.Global.TopN("searches") != 10 || c.Global.TopN("pageviews") != 0 {
		t.Errorf("top lists: conversations %d, searches %d, pageviews %d", c.Global.TopN("conversations"), c.Global.TopN("searches"), c.Global.TopN("pageviews"))
	}
	if c.Global.FeedbackLookBack.String() != "30d" {
		t.Errorf("feedback_look_back %s", c.Global.FeedbackLookBack)
	}
	if d, _ := Parse([]byte("keys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n")); d.Global.TopN("conversations") != 20 {
		t.Errorf("default conversations top list %d, want 20", d.Global.TopN("conversations"))
	}
	for bad, field := range map[string]string{
		"global: {collector_top_n: {pageviews: 5}}":       "collector_top_n.pageviews",
		"global: {collector_top_n: {conversations: 0}}":   "collector_top_n.conversations must be between 1 and 100",
		"global: {collector_top_n: {conversations: 101}}": "collector_top_n.conversations must be between 1 and 100",
		"global: {feedback_look_back: 12h}":               "feedback_look_back must be between 1d and",
		"global: {feedback_look_back: 400d}":              "feedback_look_back must be between 1d and",
	} {
		_, err := Parse([]byte(bad + "\nkeys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n"))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error naming %s", bad, err, field)
		}
	}
}
