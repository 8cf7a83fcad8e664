package config

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
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

// TestKindSettingKeys: a row that names a key of its own for a setting
// (spec.Collector.TopNKey, LookBackKey) names a field of global of the
// setting's type, which defaults to the row's value; every other row's
// setting is read from collector_top_n.NAME or collector_look_back.NAME;
// and a setting given for a collector without it is refused.
func TestKindSettingKeys(t *testing.T) {
	const rest = "\nkeys: [{name: a, api_key_env: K}]\nprojects: [{id: p}]\n"
	for _, k := range collector.All {
		g := DefaultGlobal
		if _, ok := g.ownKey(k.TopNKey).(*int); k.TopNKey != "" && !ok {
			t.Errorf("%s: top-n key %q is no int field of global", k.Name, k.TopNKey)
		}
		if _, ok := g.ownKey(k.LookBackKey).(*Duration); k.LookBackKey != "" && !ok {
			t.Errorf("%s: look-back key %q is no duration field of global", k.Name, k.LookBackKey)
		}
		if g.TopN(k.Name) != k.TopN || g.LookBack(k.Name) != k.LookBack {
			t.Errorf("%s: defaults %d, %s; the row says %d, %s", k.Name, g.TopN(k.Name), g.LookBack(k.Name), k.TopN, k.LookBack)
		}
		var yml string
		if k.TopN > 0 {
			yml += setAt(k.Key(spec.TopNSetting), "3")
		}
		if k.LookBack > 0 {
			yml += setAt(k.Key(spec.LookBackSetting), "2d")
		}
		if yml == "" {
			_, err := Parse([]byte("global: {collector_top_n: {" + k.Name + ": 3}, collector_look_back: {" + k.Name + ": 2d}}" + rest))
			if err == nil || !strings.Contains(err.Error(), "collector_top_n."+k.Name) || !strings.Contains(err.Error(), "collector_look_back."+k.Name) {
				t.Errorf("%s has no setting, yet: %v", k.Name, err)
			}
			continue
		}
		c, err := Parse([]byte("global:\n" + yml + rest))
		if err != nil {
			t.Fatalf("%s:\n%s: %v", k.Name, yml, err)
		}
		if (k.TopN > 0 && c.Global.TopN(k.Name) != 3) || (k.LookBack > 0 && c.Global.LookBack(k.Name) != 48*time.Hour) {
			t.Errorf("%s:\n%s read as %d, %s", k.Name, yml, c.Global.TopN(k.Name), c.Global.LookBack(k.Name))
		}
	}
}

// setAt is the YAML under global: that sets the dotted key to value.
func setAt(key, value string) string {
	if name, sub, ok := strings.Cut(key, "."); ok {
		return "  " + name + ":\n    " + sub + ": " + value + "\n"
	}
	return "  " + key + ": " + value + "\n"
}
