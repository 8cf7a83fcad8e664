//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package safefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestLockContextEndsWithItsContext: while another open file description
// holds the lock, LockContext waits, and returns as soon as its context is
// cancelled, with an error naming the file and (on Linux) the holder; f is
// left unlocked and usable. Once the lock is free it is taken, even with
// an ended context.
func TestLockContextEndsWithItsContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "STATE.lock")
	open := opener(t, path)
	holder, waiter := open(), open()
	if err := Lock(holder, true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- LockContext(ctx, waiter) }()
	cancel()
	err := <-done // a wait the context does not end hangs the test here
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, context.Canceled) || held.Path != path {
		t.Fatalf("LockContext = %v, want a *HeldError on %s wrapping context.Canceled", err, path)
	}
	if runtime.GOOS == "linux" && !slices.Contains(held.Holders, os.Getpid()) {
		t.Errorf("holders %v do not name this process (%d)", held.Holders, os.Getpid())
	}
	if err := Unlock(holder); err != nil {
		t.Fatal(err)
	}
	if err := LockContext(ctx, waiter); err != nil {
		t.Fatalf("a free lock with an ended context: %v", err)
	}
	if got, _ := TryLock(open()); got {
		t.Fatal("LockContext returned without holding the lock")
	}
}
