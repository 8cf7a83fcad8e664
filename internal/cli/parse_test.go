package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"
)

// TestParseKingpin: --help unwinds with kingpin's status 0 and the usage
// on stdout, a bad flag is the caller's usage code with the message on
// stderr, a good command line is not done, and the process never exits.
func TestParseKingpin(t *testing.T) {
	newApp := func() *kingpin.Application {
		app := kingpin.New("tool sub", "A test command.")
		app.Flag("n", "A number.").Int()
		app.Flag("out", "A file.").Short('o').String()
		app.Flag("b", "A switch.").Bool()
		return app
	}
	for _, c := range []struct {
		args           []string
		code           int
		done           bool
		stdout, stderr string
	}{
		{[]string{"--help"}, 0, true, "A test command.", ""},
		{[]string{"--bogus"}, 7, true, "", "tool sub: unknown long flag '--bogus' (try --help)"},
		{[]string{"--n", "x"}, 7, true, "", "tool sub: "},
		{[]string{"--n", "3"}, 0, false, "", ""},
	} {
		var out, errb bytes.Buffer
		_, code, done := Parse(newApp(), c.args, &out, &errb, "tool sub", 7)
		if code != c.code || done != c.done || !strings.Contains(out.String(), c.stdout) || !strings.Contains(errb.String(), c.stderr) {
			t.Errorf("%v: code %d done %v, stdout %q, stderr %q", c.args, code, done, out.String(), errb.String())
		}
		if c.stdout == "" && out.Len() > 0 {
			t.Errorf("%v: wrote to stdout: %q", c.args, out.String())
		}
	}
	// A lone "-" is the value of the flag before it, not an empty one.
	for _, args := range [][]string{{"--out", "-"}, {"-o", "-"}, {"--out=-"}, {"-o-"}} {
		app := newApp()
		_, code, done := Parse(app, args, &bytes.Buffer{}, &bytes.Buffer{}, "tool sub", 7)
		if got := app.GetFlag("out").Model().Value.String(); done || code != 0 || got != "-" {
			t.Errorf("%v: --out %q (code %d, done %v), want -", args, got, code, done)
		}
	}
	if got := joinDashValues(newApp(), []string{"--b", "-", "--", "--out", "-"}); strings.Join(got, " ") != "--b - -- --out -" {
		t.Errorf("a bool flag's or a -- argument's - was joined: %q", got)
	}
	// A panic that is not kingpin's Terminate is not swallowed.
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want the action's own panic", r)
		}
	}()
	app := newApp()
	app.Action(func(*kingpin.ParseContext) error { panic("boom") })
	Parse(app, nil, &bytes.Buffer{}, &bytes.Buffer{}, "tool sub", 7)
	t.Error("the panic did not propagate")
}
