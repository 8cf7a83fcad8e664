package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackfillDispatched: the binary's run() hands "backfill" to the
// command (exit 2 and its own message for a missing --from).
func TestBackfillDispatched(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"backfill", "--output", filepath.Join(t.TempDir(), "x.om"), "--mintlify.project-id", "p"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "mintlify_exporter backfill: required flag(s) '--from'") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestDispatch: each command name reaches its command (its own usage
// line), and anything else is the exporter's command line.
func TestDispatch(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"jobs", "--help"}, "usage: mintlify_exporter jobs"},
		{[]string{"backfill", "--help"}, "usage: mintlify_exporter backfill"},
		{[]string{"receiver", "--help"}, "usage: mintlify_exporter receiver"},
		{[]string{"--no-such-flag"}, "mintlify_exporter: unknown long flag '--no-such-flag'"},
	} {
		var out, errb bytes.Buffer
		run(c.args, &out, &errb)
		if got := out.String() + errb.String(); !strings.Contains(got, c.want) {
			t.Errorf("%v: output does not contain %q:\n%s", c.args, c.want, got)
		}
	}
}

// TestHelpNamesEveryCommand: --help lists every command, so that none has
// to be found in the docs (the man page is checked by make package-test).
func TestHelpNamesEveryCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	for name := range commands {
		if !strings.Contains(out.String(), "mintlify_exporter "+name+" ") {
			t.Errorf("--help does not name the %s command:\n%s", name, out.String())
		}
	}
}
