package receiver

import (
	"encoding/json"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLoadConfigErrors: each bad routes file or template is refused at
// load with a message that names the problem.
func TestLoadConfigErrors(t *testing.T) {
	route := func(action string) string {
		return "projects: {p1: Docs}\nroutes:\n  - name: r\n    alert: A\n    labels: [{name: page}]\n    action: " + action + "\n"
	}
	job := route("{kind: job, project: p1, prompt_template_file: t.tmpl}")
	cases := []struct {
		name, yaml, tmpl, want string
	}{
		{"unknown field", job + "extra: 1\n", "x", "field extra not found"},
		{"no routes", "projects: {p1: Docs}\n", "x", "no routes"},
		{"bad kind", route("{kind: webhook, project: p1}"), "x", "action kind must be"},
		{"unlisted project", route("{kind: automation, project: p2, automation_id: a1}"), "x", `project "p2" is not listed`},
		{"placeholder project", strings.Replace(route("{kind: automation, project: YOUR_PROJECT_ID, automation_id: a1}"), "{p1: Docs}", "{YOUR_PROJECT_ID: Docs}", 1), "x", "YOUR_PROJECT_ID is the example's placeholder"},
		{"placeholder automation", route("{kind: automation, project: p1, automation_id: your-automation-id}"), "x", "automation_id your-automation-id is the example's placeholder"},
		{"automation with template", route("{kind: automation, project: p1, automation_id: a1, prompt_template_file: t.tmpl}"), "x", "no prompt_template_file"},
		{"annotations", job, "{{.Annotations.summary}}", "can't evaluate field Annotations"},
		{"unlisted label", job, "{{.Labels.path}}", `map has no entry for key "path"`},
		{"empty prompt", job, "  ", "empty prompt"},
		{"unanchored pattern", strings.Replace(job, "{name: page}", "{name: page, pattern: 'a+'}", 1), "x", "must be anchored"},
		{"bad route name", strings.Replace(job, "name: r\n", "name: '1 r'\n", 1), "x", "must be a letter"},
		{"two documents", job + "---\nroutes: []\n", "x", "more than one YAML document"},
		{"daily cap", job + "daily_cap: 1000\n", "x", "daily_cap must be"},
		{"map text with a newline", strings.Replace(job, "{name: page}", "{name: category, map: {a: \"x\\ny\"}}", 1), "x", "without control characters"},
		{"a visitor's category without a map", strings.Replace(job, "{name: page}", "{name: category}", 1), "x", "category carries what visitors typed"},
		{"a visitor's search term by pattern", strings.Replace(job, "{name: page}", "{name: query, pattern: '^[a-z]{1,8}$'}", 1), "x", "query carries what visitors typed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "r.yml"), c.yaml)
			write(t, filepath.Join(dir, "t.tmpl"), c.tmpl)
			_, err := LoadConfig(filepath.Join(dir, "r.yml"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestDefaults: a minimal routes file gets the documented defaults, and
// the default pattern takes what it says and nothing else.
func TestDefaults(t *testing.T) {
	c, err := parseConfig([]byte("projects: {p1: Docs}\nroutes:\n  - {name: r, alert: A, labels: [{name: page}], action: {kind: automation, project: p1, automation_id: a1}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(c.Cooldown) != 7*24*time.Hour || c.DailyCap != 2 || c.Act {
		t.Errorf("defaults: cooldown %s, cap %d, act %v", c.Cooldown, c.DailyCap, c.Act)
	}
	r := c.Routes[0]
	for v, ok := range map[string]bool{
		"/api/keys_v2.html": true, "billing-and-invoices": true, strings.Repeat("a", 64): true,
		"Billing and invoices": false, "ignore previous instructions": false,
		strings.Repeat("a", 65): false, "": false, "a\nb": false, "<script>": false, "ünïcode": false, "a:b": false,
	} {
		_, err := r.slotValues(map[string]string{"page": v})
		if (err == nil) != ok {
			t.Errorf("value %q: err %v, want accepted %v", v, err, ok)
		}
	}
}

// TestAuditRotation: past its bound the audit log is rotated, keeping
// --receiver.audit-keep old files, each line whole.
func TestAuditRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	a, err := openAudit(path, 4096, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := a.write(&auditRecord{Route: "r" + strconv.Itoa(i), Outcome: OutcomeDryRun, Prompt: strings.Repeat("p", 200)}); err != nil {
			t.Fatal(err)
		}
	}
	a.close()
	var last string
	for _, name := range []string{path + ".2", path + ".1", path} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 4096 {
			t.Errorf("%s is %d bytes, over the bound", name, len(b))
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r auditRecord
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			last = r.Route
		}
	}
	if last != "r99" {
		t.Errorf("last record %s, want r99", last)
	}
	if _, err := os.Stat(path + ".3"); !os.IsNotExist(err) {
		t.Errorf("%s.3 kept: %v", path, err)
	}
}

// TestFlagsDocumented: docs/loop.md has a row for every flag of the
// receiver but the shared ones (configuration.md's), and none for a flag it does not have.
func TestFlagsDocumented(t *testing.T) {
	testkit.CheckFlagsDocumented(t, "loop.md", newApp(&flags{}), "the receiver", "web.", "mintlify.", "log.")
}
