package dashboards_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-jsonnet"
	"go.yaml.in/yaml/v3"
)

const (
	mixinFile = "mixin.libsonnet"
	// defaultReceiverSelector is the receiver's scrape job in prometheus.yml
	// and the mixin's default _config.receiverSelector.
	defaultReceiverSelector = `job="mintlify_receiver"`
)

// The rules of monitoring.mixins.dev, as mixtool lint applies them.
var (
	camelCaseRE = regexp.MustCompile(`^([A-Z]+[a-z0-9]+)+$`)
	templateRE  = regexp.MustCompile(`\{\{.+\}\}`)
	sentenceRE  = regexp.MustCompile(`^[A-Z].+\.$`)
	severities  = []string{"critical", "warning", "info"}
)

// mixinProblems lists where an alert breaks the mixin rules for alerts.
func mixinProblems(alert string, labels, annotations map[string]string) []string {
	var out []string
	if !camelCaseRE.MatchString(alert) {
		out = append(out, "the name is not CamelCase")
	}
	if !slices.Contains(severities, labels["severity"]) {
		out = append(out, "severity "+labels["severity"]+" is none of "+strings.Join(severities, ", "))
	}
	if d, ok := annotations["description"]; !ok || !templateRE.MatchString(d) {
		out = append(out, "the description is missing or has no template value")
	}
	if s, ok := annotations["summary"]; !ok || templateRE.MatchString(s) || !sentenceRE.MatchString(s) {
		out = append(out, "the summary is not one plain sentence (a capital letter, a period, no template): "+s)
	}
	return out
}

func TestMixinRulesCheckThemselves(t *testing.T) {
	good := map[string]string{"description": "Project {{ $labels.project }} is down.", "summary": "A project is down."}
	if p := mixinProblems("MintlifyUpstreamDown", map[string]string{"severity": "critical"}, good); len(p) > 0 {
		t.Errorf("a good alert: %v", p)
	}
	for name, c := range map[string]struct {
		alert, severity, summary, description string
	}{
		"templated summary":     {"MintlifyX", "info", "Project {{ $labels.project }} is down.", "{{ $value }}"},
		"no period":             {"MintlifyX", "info", "A project is down", "{{ $value }}"},
		"plain description":     {"MintlifyX", "info", "A project is down.", "A project is down."},
		"other severity":        {"MintlifyX", "page", "A project is down.", "{{ $value }}"},
		"not camel case":        {"mintlify_x", "info", "A project is down.", "{{ $value }}"},
		"lower-case first word": {"MintlifyX", "info", "mintlify_exporter is down.", "{{ $value }}"},
	} {
		ann := map[string]string{"summary": c.summary, "description": c.description}
		if len(mixinProblems(c.alert, map[string]string{"severity": c.severity}, ann)) == 0 {
			t.Errorf("%s: no problem found", name)
		}
	}
}

// TestAlertsFollowMixinRules: every alert, the demo's included, has a
// plain-sentence summary, a templated description and a severity of the
// mixin rules (mixtool lint's alert checks).
func TestAlertsFollowMixinRules(t *testing.T) {
	for _, file := range []string{alertsFile, filepath.Join("demo", "alerts.yml")} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var rf ruleFile
		if err := yaml.Unmarshal(b, &rf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		n := 0
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert == "" {
					continue
				}
				n++
				for _, p := range mixinProblems(r.Alert, r.Labels, r.Annotations) {
					t.Errorf("%s: %s: %s", file, r.Alert, p)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no alerts", file)
		}
	}
}

// renderMixin evaluates a Jsonnet expression on the mixin (bound to m),
// as a jsonnet user's import would, and returns the value decoded.
func renderMixin(t *testing.T, expr string) any {
	t.Helper()
	vm := jsonnet.MakeVM()
	out, err := vm.EvaluateAnonymousSnippet("render.jsonnet", "local m = import '"+mixinFile+"';\n"+expr)
	if err != nil {
		t.Fatalf("rendering %s: %v", expr, err)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// asJSON decodes a YAML or JSON file as JSON would, numbers as float64.
func asJSON(t *testing.T, file string) any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var y any
	if err := yaml.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	j, err := json.Marshal(y)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMixinIsTheFiles: the mixin's prometheusAlerts, prometheusRules and
// grafanaDashboards are alerts.yml, rules.yml and mintlify.json, unchanged
// with the default _config, so the mixin and the files never part.
func TestMixinIsTheFiles(t *testing.T) {
	for _, c := range []struct {
		expr string
		want any
	}{
		{"m.prometheusAlerts", asJSON(t, alertsFile)},
		{"m.prometheusRules", asJSON(t, "rules.yml")},
		{"m.grafanaDashboards['mintlify.json']", asJSON(t, dashboardFile)},
		{"std.objectFields(m.grafanaDashboards)", []any{"mintlify.json"}},
		{"m._config.receiverSelector", defaultReceiverSelector},
	} {
		if got := renderMixin(t, c.expr); !reflect.DeepEqual(got, c.want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(c.want)
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Errorf("%s differs from its file at byte %d:\n got …%.200s\nwant …%.200s", c.expr, i, g[max(i-100, 0):], w[max(i-100, 0):])
		}
	}
}

// TestMixinSelector: _config.receiverSelector replaces the receiver's job
// in every receiver alert, and promtool checks what the mixin renders,
// with the default selector and with another.
func TestMixinSelector(t *testing.T) {
	const custom = `job="docs-receiver", namespace="docs"`
	alerts := renderMixin(t, "(m + { _config+:: { receiverSelector: '"+custom+"' } }).prometheusAlerts")
	b, _ := json.Marshal(alerts)
	var rf ruleFile
	if err := json.Unmarshal(b, &rf); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rf.Groups[0].Rules {
		if strings.Contains(r.Expr, defaultReceiverSelector) {
			t.Errorf("%s still selects %s: %s", r.Alert, defaultReceiverSelector, r.Expr)
		}
		if strings.Contains(r.Expr, custom) {
			n++
		}
	}
	if n == 0 {
		t.Errorf("no alert selects %s", custom)
	}

	bin, ok := promtool(t, "promtool check of the rules the mixin renders")
	if !ok {
		return
	}
	dir := t.TempDir()
	for name, expr := range map[string]string{
		"alerts.json":        "m.prometheusAlerts",
		"rules.json":         "m.prometheusRules",
		"custom_alerts.json": "(m + { _config+:: { receiverSelector: '" + custom + "' } }).prometheusAlerts",
	} {
		out, err := json.Marshal(renderMixin(t, expr))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runPromtool(t, bin, dir, "check", "rules", "alerts.json", "rules.json", "custom_alerts.json")
}
