//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package statefiles

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// TestHeldLockEndsTheWait: while another process holds STATE.lock, an
// update ends when its context does, and after at most its bound, with an
// error naming the lock file; after a wait that ran out the next updates
// do not wait, until the lock is free again.
func TestHeldLockEndsTheWait(t *testing.T) {
	l := LedgerFor(filepath.Join(t.TempDir(), "state.json"))
	if err := l.Write(time.Now(), Keys{}); err != nil {
		t.Fatal(err)
	}
	holder, err := os.OpenFile(l.LockPath(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := safefile.Lock(holder, true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.Begin(ctx, time.Now())
	var held *LockHeldError
	if !errors.As(err, &held) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), l.LockPath()) {
		t.Fatalf("a cancelled wait: %v", err)
	}
	if l.stuck.Load() {
		t.Error("a cancelled wait counts as a lock held too long")
	}
	l.maxWait = time.Millisecond
	_, err = l.Begin(context.Background(), time.Now())
	if !errors.As(err, &held) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a bounded wait: %v", err)
	}
	if !l.stuck.Load() {
		t.Error("a wait that ran out is not remembered")
	}
	if err := safefile.Unlock(holder); err != nil {
		t.Fatal(err)
	}
	if err := update(l, time.Now()); err != nil || l.stuck.Load() {
		t.Errorf("once free: %v, stuck %v", err, l.stuck.Load())
	}
}
