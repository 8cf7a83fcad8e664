//go:build linux

package statefiles

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// TestRootCreatesFilesTheServiceCanUse (#36 case 8): root (a backfill
// with --storage.path, or an exporter run once by hand) creates the state
// file, ledger, lock and owner file in the state directory of a service
// that runs as nobody: each is nobody's, mode 0600, and the service then
// claims them, reads the ledger root wrote and writes both files.
func TestRootCreatesFilesTheServiceCanUse(t *testing.T) {
	const dirEnv = "MINTLIFY_TEST_SERVICE_DIR"
	if !testkit.AsUser(t, testkit.Nobody, testkit.Nobody, dirEnv+"="+serviceDirFilledByRoot(t)) {
		return
	}
	path := filepath.Join(os.Getenv(dirEnv), "state.json")
	var failed []string
	f, err := Open(path, testLog(&bytes.Buffer{}))
	if err != nil {
		t.Fatalf("the service cannot claim the files root created: %v", err)
	}
	defer f.Close()
	now := time.Now()
	keys, _ := f.ReadLedger(now, time.Hour)
	if len(keys["fp"].Foreign) != 1 {
		t.Errorf("the service reads %+v from the ledger, want root's backfill request", keys)
	}
	tx, err := f.BeginLedger(context.Background(), now)
	if err != nil {
		failed = append(failed, "ledger: "+err.Error())
	} else {
		tx.Record("fp", Exporter, []time.Time{now})
		if err := f.CommitLedger(tx); err != nil {
			failed = append(failed, "ledger: "+err.Error())
		}
	}
	if err := f.WriteData(map[string]int{"units": 0}); err != nil {
		failed = append(failed, "state: "+err.Error())
	}
	if len(failed) > 0 {
		t.Errorf("the service's saves failed: %v", failed)
	}
}

// serviceDirFilledByRoot is a directory of the user nobody (mode 0750),
// in which root created the state files of state.json; it checks that
// each is nobody's, mode 0600. "" in the copy run as nobody, or without
// root (AsUser skips).
func serviceDirFilledByRoot(t *testing.T) string {
	t.Helper()
	if os.Getenv("MINTLIFY_TEST_AS_USER") != "" || os.Geteuid() != 0 {
		return ""
	}
	dir, err := os.MkdirTemp("", "service")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "state.json")
	now := time.Now()
	k := Keys{}
	k.Set("fp", "backfill", []time.Time{now.Add(-time.Minute)})
	if err := LedgerFor(path).Write(now, k); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, testLog(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	err = f.WriteData(map[string]int{"units": 0})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".ledger", path + ".lock", path + ".owner"} {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != testkit.Nobody || st.Gid != testkit.Nobody || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s created by root: uid %d gid %d mode %#o, want the directory's %d:%d and 0600",
				filepath.Base(p), st.Uid, st.Gid, fi.Mode().Perm(), testkit.Nobody, testkit.Nobody)
		}
	}
	return dir
}

// TestRootMakesTheStateDirectoryForItsParentOwner (#46 case 14): the
// missing directory of a --storage.path that root claims (an exporter
// run once by hand) is made as its parent's owner's, mode 0750, so the
// service can start on it after.
func TestRootMakesTheStateDirectoryForItsParentOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatal("CI runs as root")
		}
		t.Skip("making a directory for another user needs root")
	}
	parent := t.TempDir()
	if err := os.Chown(parent, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "state")
	f, err := Open(filepath.Join(dir, "state.json"), testLog(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != testkit.Nobody || st.Gid != testkit.Nobody || fi.Mode().Perm() != 0o750 {
		t.Errorf("%s made by root: uid %d gid %d mode %#o, want its parent's %d:%d, 0750", dir, st.Uid, st.Gid, fi.Mode().Perm(), testkit.Nobody, testkit.Nobody)
	}
}
