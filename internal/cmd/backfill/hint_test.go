package backfill

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestPromtoolHintIsQuoted: the promtool command printed after a run
// quotes the output path, so pasted into sh it names that file even when
// the path holds a space, a quote and a semicolon.
func TestPromtoolHintIsQuoted(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 3, Paths: 5}, nil)
	out := filepath.Join(t.TempDir(), "it's history; touch pwned.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-01", "--to", "2026-09-01", "--site-only", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, cmd, ok := strings.Cut(stderr, "next: ")
	if !ok {
		t.Fatalf("no command in %q", stderr)
	}
	cmd, _, _ = strings.Cut(cmd, "\n")
	// The arguments as sh reads them, with promtool replaced by printf.
	dir := t.TempDir()
	sh := exec.Command("sh", "-c", `promtool() { printf '%s\n' "$@"; }; `+cmd)
	sh.Dir = dir
	got, err := sh.Output()
	if err != nil {
		t.Fatalf("sh: %s: %v", cmd, err)
	}
	if want := "tsdb\ncreate-blocks-from\nopenmetrics\n" + out + "\nDATA_DIR\n"; string(got) != want {
		t.Errorf("sh reads %q as %q, want %q", cmd, got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("the command ran more than promtool")
	}
}
