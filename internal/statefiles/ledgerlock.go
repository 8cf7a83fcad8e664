package statefiles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// MaxLockWait bounds a wait for the ledger's lock: held longer, it is stuck or held on purpose, and would stall refreshes and shutdown.
const MaxLockWait = 10 * time.Second

// LockHeldError is a ledger lock held longer than the writer would wait; the save is skipped.
type LockHeldError struct{ *safefile.HeldError }

func (e *LockHeldError) Error() string {
	return fmt.Sprintf("%s; the ledger was not read nor written (the lock guards it against two writers at once)", e.HeldError.Error())
}

// lockFile stops waiting after one wait ran out until a lock succeeds, so a lock held for ever costs each save nothing.
func (l *Ledger) lockFile(ctx context.Context) (*os.File, error) {
	if err := safefile.MkdirAll(filepath.Dir(l.lock), 0o750); err != nil {
		return nil, err
	}
	if err := safefile.CheckTarget(l.lock); err != nil {
		return nil, err
	}
	f, err := safefile.Create(l.lock, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	wait := MaxLockWait
	if l.maxWait > 0 {
		wait = l.maxWait
	}
	if l.stuck.Load() {
		wait = 0
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := safefile.LockContext(ctx, f); err != nil {
		f.Close()
		var held *safefile.HeldError
		if errors.As(err, &held) {
			if errors.Is(err, context.DeadlineExceeded) {
				l.stuck.Store(true)
			}
			return nil, &LockHeldError{held}
		}
		return nil, err
	}
	l.stuck.Store(false)
	return f, nil
}

func unlock(f *os.File) {
	_ = safefile.Unlock(f)
	f.Close()
}

// Fingerprint names a key without revealing it, and survives a rename of the key in the configuration.
func Fingerprint(key string) string {
	sum := sha256.Sum256([]byte("mintlify_exporter key fingerprint\x00" + key))
	return hex.EncodeToString(sum[:8])
}

// SetMaxWait changes the bound of a wait for the lock (MaxLockWait when 0 or less).
func (l *Ledger) SetMaxWait(d time.Duration) { l.maxWait = max(d, 0) }
