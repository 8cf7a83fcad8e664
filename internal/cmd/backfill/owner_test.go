//go:build linux

package backfill

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// TestRootBackfillLeavesTheServiceItsFiles (#36 case 8): a backfill run
// as root with --storage.path in the state directory of a service that
// runs as nobody, which has no ledger yet, creates the ledger and its
// lock as nobody's, mode 0600, so the service can use them after.
func TestRootBackfillLeavesTheServiceItsFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatal("CI runs as root")
		}
		t.Skip("creating files in another user's directory as root needs root")
	}
	h := newBackfillHarness(t, mockapi.Site{Seed: 1, Paths: 20}, nil)
	dir := filepath.Dir(h.statePath())
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "h.om")
	if code, stderr := h.run(context.Background(), nil, "--from", "2026-09-10", "--to", "2026-09-11", "--yes", "--output", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, p := range []string{h.statePath() + ".ledger", h.statePath() + ".lock"} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != testkit.Nobody || st.Gid != testkit.Nobody || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: uid %d gid %d mode %#o, want the service's %d:%d, 0600", filepath.Base(p), st.Uid, st.Gid, fi.Mode().Perm(), testkit.Nobody, testkit.Nobody)
		}
	}
}

// TestRootBackfillMakesTheStateDirectoryForItsParentOwner (#46 case 14):
// a backfill run as root with a --storage.path whose directory is
// missing, in a directory of nobody's, makes that directory nobody's,
// mode 0750, as the exporter makes it, so the service can start on it;
// with --output - too, whose journal goes there first.
func TestRootBackfillMakesTheStateDirectoryForItsParentOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatal("CI runs as root")
		}
		t.Skip("making a directory for another user as root needs root")
	}
	for _, output := range []string{"file", "-"} {
		h := newBackfillHarness(t, mockapi.Site{Seed: 1, Paths: 20}, nil)
		if err := os.Chown(h.dir, testkit.Nobody, testkit.Nobody); err != nil {
			t.Fatal(err)
		}
		out := output
		if output == "file" {
			out = filepath.Join(t.TempDir(), "h.om")
		}
		if code, stderr := h.run(context.Background(), nil, "--from", "2026-09-10", "--to", "2026-09-11", "--yes", "--output", out); code != 0 {
			t.Fatalf("--output %s: exit %d: %s", output, code, stderr)
		}
		dir := filepath.Dir(h.statePath())
		fi, err := os.Lstat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != testkit.Nobody || st.Gid != testkit.Nobody || fi.Mode().Perm() != 0o750 {
			t.Errorf("--output %s: %s made by root: uid %d gid %d mode %#o, want its parent's %d:%d, 0750", output, dir, st.Uid, st.Gid, fi.Mode().Perm(), testkit.Nobody, testkit.Nobody)
		}
	}
}
