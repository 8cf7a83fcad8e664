//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// An exclusive lock keeps another open file description out until it is
// released; shared locks admit each other.
func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	open := opener(t, path)
	a, b := open(), open()
	tryLock := func(f *os.File, how int) error { return syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB) }
	if err := Lock(a, true); err != nil {
		t.Fatal(err)
	}
	if tryLock(b, syscall.LOCK_SH) == nil {
		t.Fatal("a shared lock was granted beside an exclusive one")
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := Lock(a, false); err != nil {
		t.Fatal(err)
	}
	if err := tryLock(b, syscall.LOCK_SH); err != nil {
		t.Fatalf("a second shared lock was refused: %v", err)
	}
	if tryLock(open(), syscall.LOCK_EX) == nil {
		t.Fatal("an exclusive lock was granted beside shared ones")
	}
}

// opener returns a func that opens path (created if missing) anew at
// each call: another open file description, as another process would
// have, closed when the test ends.
func opener(t *testing.T, path string) func() *os.File {
	return func() *os.File {
		t.Helper()
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
}
