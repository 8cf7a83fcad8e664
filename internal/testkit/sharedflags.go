package testkit

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
)

// sharedCommands are the commands, in the order of the columns of the
// table "Flags every command shares" in docs/configuration.md.
var sharedCommands = []string{"exporter", "jobs", "backfill"}

// sharedFlags is which command has which shared flag; "many" is
// repeatable.
var sharedFlags = []struct {
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

// deprecatedFlags are the hidden names each command still accepts.
var deprecatedFlags = map[string][]string{"jobs": {"request-timeout"}, "backfill": {"project", "request-timeout"}}

// CheckSharedFlags checks that a flag the command cmd ("exporter", "jobs"
// or "backfill") shares with others means what it means in every command
// that has it: the name, default, environment variable, placeholder and
// first sentence of help of internal/cli's definition, shown, repeatable
// where the command takes several; that the table of docs/configuration.md
// gives cmd exactly those; and that its deprecated names are hidden and
// still accepted.
func CheckSharedFlags(t *testing.T, cmd string, app *kingpin.Application) {
	t.Helper()
	col := slices.Index(sharedCommands, cmd)
	if col < 0 {
		t.Fatalf("%q is not one of the commands %v", cmd, sharedCommands)
	}
	// What every command's flag must match: internal/cli's definitions,
	// with no note of a command's own.
	var ref cli.Flags
	refApp := kingpin.New("shared", "")
	ref.AddProjectID(refApp, "")
	ref.AddKeyFile(refApp, "")
	ref.AddAPIURL(refApp, "")
	ref.AddRequestTimeout(refApp, "")
	ref.AddConfigFile(refApp, "")
	ref.AddStoragePath(refApp, "")
	model, refModel := app.Model(), refApp.Model()

	b, err := os.ReadFile(filepath.Join(RepoRoot(t), "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, doc, ok := strings.Cut(string(b), "### Flags every command shares\n")
	if !ok {
		t.Fatal("docs/configuration.md has no section \"Flags every command shares\"")
	}
	doc, _, _ = strings.Cut(doc, "\n#")
	for _, w := range sharedFlags {
		kind, has := w.has[cmd]
		checkSharedFlag(t, cmd, w.flag, kind, has, findFlag(model, w.flag), findFlag(refModel, w.flag))
		checkSharedFlagRow(t, doc, cmd, col, w.flag, has)
	}
	for _, name := range deprecatedFlags[cmd] {
		if f := findFlag(model, name); f == nil || !f.Hidden {
			t.Errorf("%s: the deprecated --%s is gone or shown", cmd, name)
		}
	}
}

// checkSharedFlag compares cmd's --flag (f, nil when it has none) with
// internal/cli's definition (want); kind is "one" or "many", has whether
// the table gives cmd the flag.
func checkSharedFlag(t *testing.T, cmd, flag, kind string, has bool, f, want *kingpin.FlagModel) {
	t.Helper()
	switch {
	case !has && f != nil:
		t.Errorf("%s has --%s, which the table does not give it", cmd, flag)
		return
	case !has:
		return
	case f == nil:
		t.Errorf("%s has no --%s", cmd, flag)
		return
	}
	if f.Hidden {
		t.Errorf("%s hides --%s", cmd, flag)
	}
	if (kind == "many") != repeatable(f) {
		t.Errorf("%s --%s: repeatable %v, want %s", cmd, flag, repeatable(f), kind)
	}
	if f.Envar != want.Envar && flag != "mintlify.project-id" {
		t.Errorf("--%s: environment variable %q in %s, %q elsewhere", flag, f.Envar, cmd, want.Envar)
	}
	if strings.Join(f.Default, ",") != strings.Join(want.Default, ",") || f.PlaceHolder != want.PlaceHolder {
		t.Errorf("--%s: default %q placeholder %q in %s, %q %q elsewhere", flag, f.Default, f.PlaceHolder, cmd, want.Default, want.PlaceHolder)
	}
	if flag != "config.file" && flag != "storage.path" && firstSentence(f.Help) != firstSentence(want.Help) {
		t.Errorf("--%s: help begins %q in %s, %q elsewhere", flag, firstSentence(f.Help), cmd, firstSentence(want.Help))
	}
}

// checkSharedFlagRow checks the row of --flag in docs/configuration.md's
// table (doc): cmd's column (col) is empty only when cmd has no such flag.
func checkSharedFlagRow(t *testing.T, doc, cmd string, col int, flag string, has bool) {
	t.Helper()
	row := regexp.MustCompile("(?m)^\\| `--" + regexp.QuoteMeta(flag) + "`[^|]*\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|")
	m := row.FindStringSubmatch(doc)
	if m == nil {
		t.Errorf("docs/configuration.md: no row for --%s in the table of shared flags", flag)
		return
	}
	if cell := strings.TrimSpace(m[col+1]); (cell != "") != has {
		t.Errorf("docs/configuration.md: --%s under %s is %q, want it empty only when the command has no such flag", flag, cmd, cell)
	}
}

func findFlag(m *kingpin.ApplicationModel, name string) *kingpin.FlagModel {
	for _, f := range m.Flags {
		if f.Name == name {
			return f
		}
	}
	return nil
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
