//go:build unix

package testkit

import (
	"os"
	"syscall"
	"testing"
)

// HoldLock takes an exclusive flock on path (created if missing) as
// another process would, since flock locks belong to an open file
// description, until the test ends or release is called.
func HoldLock(t testing.TB, path string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
}
