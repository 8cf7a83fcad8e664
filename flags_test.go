package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/jobs"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
)

// TestSharedFlags: a flag that several commands have means the same in
// each: same name, default, environment variable, placeholder and first
// sentence of help; the table of docs/configuration.md says which command
// has which, and a deprecated name is hidden and still accepted.
func TestSharedFlags(t *testing.T) {
	apps := map[string]*kingpin.ApplicationModel{
		"exporter": serve.App().Model(),
		"jobs":     jobs.App().Model(),
		"backfill": backfill.App().Model(),
	}
	order := []string{"exporter", "jobs", "backfill"}
	// Which command has which shared flag; "many" is repeatable.
	want := []struct {
		flag string
		has  map[string]string // command -> "one", "many"
	}{
		{"mintlify.project-id", map[string]string{"exporter": "one", "jobs": "one", "backfill": "many"}},
		{"mintlify.api-key-file", map[string]string{"exporter": "one", "jobs": "one", "backfill": "one"}},
		{"mintlify.api-url", map[string]string{"exporter": "one", "jobs": "one", "backfill": "one"}},
		{"mintlify.request-timeout", map[string]string{"exporter": "one", "jobs": "one", "backfill": "one"}},
		{"config.file", map[string]string{"exporter": "one", "backfill": "one"}},
		{"storage.path", map[string]string{"exporter": "one", "backfill": "one"}},
	}
	find := func(m *kingpin.ApplicationModel, name string) *kingpin.FlagModel {
		for _, f := range m.Flags {
			if f.Name == name {
				return f
			}
		}
		return nil
	}
	b, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, doc, ok := strings.Cut(string(b), "### Flags every command shares\n")
	if !ok {
		t.Fatal("docs/configuration.md has no section \"Flags every command shares\"")
	}
	doc, _, _ = strings.Cut(doc, "\n#")
	for _, w := range want {
		var first *kingpin.FlagModel
		for _, cmd := range order {
			f := find(apps[cmd], w.flag)
			kind, ok := w.has[cmd]
			switch {
			case !ok && f != nil:
				t.Errorf("%s has --%s, which the table does not give it", cmd, w.flag)
				continue
			case !ok:
				continue
			case f == nil:
				t.Errorf("%s has no --%s", cmd, w.flag)
				continue
			case f.Hidden:
				t.Errorf("%s hides --%s", cmd, w.flag)
			case (kind == "many") != repeatable(f):
				t.Errorf("%s --%s: repeatable %v, want %s", cmd, w.flag, repeatable(f), kind)
			}
			if first == nil {
				first = f
				continue
			}
			if f.Envar != first.Envar && w.flag != "mintlify.project-id" {
				t.Errorf("--%s: environment variable %q in %s, %q elsewhere", w.flag, f.Envar, cmd, first.Envar)
			}
			if strings.Join(f.Default, ",") != strings.Join(first.Default, ",") || f.PlaceHolder != first.PlaceHolder {
				t.Errorf("--%s: default %q placeholder %q in %s, %q %q elsewhere", w.flag, f.Default, f.PlaceHolder, cmd, first.Default, first.PlaceHolder)
			}
			if w.flag != "config.file" && w.flag != "storage.path" && firstSentence(f.Help) != firstSentence(first.Help) {
				t.Errorf("--%s: help begins %q in %s, %q elsewhere", w.flag, firstSentence(f.Help), cmd, firstSentence(first.Help))
			}
		}
		row := regexp.MustCompile("(?m)^\\| `--" + regexp.QuoteMeta(w.flag) + "`[^|]*\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|")
		m := row.FindStringSubmatch(doc)
		if m == nil {
			t.Errorf("docs/configuration.md: no row for --%s in the table of shared flags", w.flag)
			continue
		}
		for i, cmd := range order {
			_, has := w.has[cmd]
			if cell := strings.TrimSpace(m[i+1]); (cell != "") != has {
				t.Errorf("docs/configuration.md: --%s under %s is %q, want it empty only when the command has no such flag", w.flag, cmd, cell)
			}
		}
	}
	// Deprecated names: hidden, still there.
	for cmd, old := range map[string][]string{"jobs": {"request-timeout"}, "backfill": {"project", "request-timeout"}} {
		for _, name := range old {
			if f := find(apps[cmd], name); f == nil || !f.Hidden {
				t.Errorf("%s: the deprecated --%s is gone or shown", cmd, name)
			}
		}
	}
}

// firstSentence is help up to its first full stop or semicolon.
func firstSentence(s string) string {
	if i := strings.IndexAny(s, ".;"); i >= 0 {
		return s[:i]
	}
	return s
}

func repeatable(f *kingpin.FlagModel) bool {
	c, ok := f.Value.(interface{ IsCumulative() bool })
	return ok && c.IsCumulative()
}
