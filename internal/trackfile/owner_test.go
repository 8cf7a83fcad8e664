//go:build linux

package trackfile

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// TestRootAppendCreatesForTheDirectoryOwner (#46 case 7): `jobs create
// --track` run as root in the state directory of a service that runs as
// nobody creates the tracked-jobs file as nobody's, mode 0600, so the
// service's own appends and reads go on working.
func TestRootAppendCreatesForTheDirectoryOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatal("CI runs as root")
		}
		t.Skip("creating a file for another user needs root")
	}
	dir := t.TempDir()
	if err := os.Chown(dir, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "jobs.txt")
	if err := Append(path, "p/job_1"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != testkit.Nobody || st.Gid != testkit.Nobody || fi.Mode().Perm() != 0o600 {
		t.Errorf("created by root: uid %d gid %d mode %#o, want the directory's %d:%d and 0600", st.Uid, st.Gid, fi.Mode().Perm(), testkit.Nobody, testkit.Nobody)
	}
	if ids := mustRead(t, path); !slices.Equal(ids, []string{"p/job_1"}) {
		t.Errorf("Read = %q", ids)
	}
}
