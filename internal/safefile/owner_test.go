//go:build linux

package safefile_test

import (
	"errors"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

func ownerOf(t *testing.T, path string) (uid, gid uint32, perm os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid, fi.Mode().Perm()
}

// TestRootRewriteKeepsOwnerAndMode: a file of the user nobody, mode 0640,
// rewritten by root (a root backfill on the service's ledger) is still
// nobody's, mode 0640, so its owner can go on writing it.
func TestRootRewriteKeepsOwnerAndMode(t *testing.T) {
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatal("CI runs as root")
		}
		t.Skip("rewriting another user's file needs root")
	}
	path := filepath.Join(t.TempDir(), "state.json.ledger")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if uid, gid, perm := ownerOf(t, path); uid != testkit.Nobody || gid != testkit.Nobody || perm != 0o640 {
		t.Errorf("after root's rewrite: uid %d gid %d mode %#o, want %d %d 0640", uid, gid, perm, testkit.Nobody, testkit.Nobody)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content %q", b)
	}
}

// TestUserRewrites: an unprivileged user rewrites its own file (mode
// kept), and refuses to replace root's file in a directory it may write,
// which would have made root's file its own; root's file is left as it
// was.
func TestUserRewrites(t *testing.T) {
	const dirEnv = "MINTLIFY_TEST_SHARED_DIR"
	if !testkit.AsUser(t, testkit.Nobody, testkit.Nobody, dirEnv+"="+sharedDirWithRootFile(t)) {
		return
	}
	own := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(own, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Write(own, []byte("new")); err != nil {
		t.Fatalf("rewriting its own file: %v", err)
	}
	if uid, _, perm := ownerOf(t, own); uid != testkit.Nobody || perm != 0o644 {
		t.Errorf("own file: uid %d mode %#o", uid, perm)
	}
	roots := filepath.Join(os.Getenv(dirEnv), "state.json")
	err := safefile.Write(roots, []byte("mine now"))
	var oe *safefile.OwnerError
	if !errors.As(err, &oe) || oe.UID != 0 {
		t.Fatalf("replacing root's file: %v, want an *safefile.OwnerError naming uid 0", err)
	}
	if b, _ := os.ReadFile(roots); string(b) != "root's" {
		t.Errorf("root's file now holds %q", b)
	}
	if matches, _ := filepath.Glob(filepath.Join(os.Getenv(dirEnv), ".state.json.*")); len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// sharedDirWithRootFile is a directory the user nobody may write, holding
// root's file state.json (mode 0644).
func sharedDirWithRootFile(t *testing.T) string {
	if os.Getenv("MINTLIFY_TEST_AS_USER") != "" || os.Geteuid() != 0 {
		return "" // the copy run as nobody, or no root: AsUser skips
	}
	dir, err := os.MkdirTemp("", "shared")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("root's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRootCreatesForTheDirectoryOwner (#36 case 8): in a directory of
// nobody's, a file root creates (Create, Write) is nobody's, mode 0600;
// one that exists is opened as it is, and O_EXCL refuses it.
func TestRootCreatesForTheDirectoryOwner(t *testing.T) {
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
	lock := filepath.Join(dir, "state.json.lock")
	f, err := safefile.Create(lock, os.O_RDWR|os.O_CREATE)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := safefile.Write(filepath.Join(dir, "state.json"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"state.json.lock", "state.json"} {
		if uid, gid, perm := ownerOf(t, filepath.Join(dir, name)); uid != testkit.Nobody || gid != testkit.Nobody || perm != 0o600 {
			t.Errorf("%s: uid %d gid %d mode %#o, want %d %d 0600", name, uid, gid, perm, testkit.Nobody, testkit.Nobody)
		}
	}
	mine := filepath.Join(dir, "root's")
	if err := os.WriteFile(mine, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if f, err = safefile.Create(mine, os.O_RDWR|os.O_CREATE); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if uid, _, perm := ownerOf(t, mine); uid != 0 || perm != 0o640 {
		t.Errorf("an existing file opened by Create: uid %d mode %#o, want it left as it was (0, 0640)", uid, perm)
	}
	if _, err := safefile.Create(mine, os.O_RDWR|os.O_CREATE|os.O_EXCL); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create with O_EXCL of an existing file: %v, want fs.ErrExist", err)
	}
}

// TestRootMkdirAllForTheParentOwner (#46 case 14): directories root makes
// in a directory of nobody's (a root backfill creating a missing
// --storage.path directory) are nobody's, mode 0750 whatever the umask,
// each one given its parent's owner; a directory that exists is left as
// it was.
func TestRootMkdirAllForTheParentOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatal("CI runs as root")
		}
		t.Skip("making a directory for another user needs root")
	}
	dir := t.TempDir()
	if err := os.Chown(dir, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	deep := filepath.Join(dir, "state", "mintlify")
	if err := safefile.MkdirAll(deep, 0o750); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Dir(deep), deep} {
		if uid, gid, perm := ownerOf(t, p); uid != testkit.Nobody || gid != testkit.Nobody || perm != 0o750 {
			t.Errorf("%s: uid %d gid %d mode %#o, want %d %d 0750", p, uid, gid, perm, testkit.Nobody, testkit.Nobody)
		}
	}
	mine := filepath.Join(t.TempDir(), "root's")
	if err := os.Mkdir(mine, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := safefile.MkdirAll(mine, 0o750); err != nil {
		t.Fatal(err)
	}
	if uid, _, perm := ownerOf(t, mine); uid != 0 || perm != 0o700 {
		t.Errorf("an existing directory: uid %d mode %#o, want it left as it was (0, 0700)", uid, perm)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := safefile.MkdirAll(filepath.Join(file, "sub"), 0o750); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("MkdirAll under a file: %v, want an error naming %s", err, file)
	}
}
