package statefiles

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// A ledger that cannot be read (corrupt, larger than MaxLedgerBytes, or
// refused by the system) would fail every save for ever, and the budget
// with it. The first writer that finds one under the lock moves it aside
// to STATE.ledger.corrupt-<time> (safefile.MoveAside, which keeps the
// safefile.KeepAside newest), writes a fresh ledger, and records the
// replacement: for the hour after it, every key's hour counts as spent
// (Keys.Foreign), since what the lost ledger recorded is unknown. A
// ledger of another program or version is not ours to move: it stays an
// error.
//
// unknownKey holds the replacement time: an entry no fingerprint (16 hex
// digits) can name, with one writer of the same name.
const unknownKey = "unknown"

// badError is a ledger that is ours but cannot be read.
type badError struct{ err error }

func (e *badError) Error() string { return e.err.Error() }
func (e *badError) Unwrap() error { return e.err }

// TakeReplaced returns the bad ledgers moved aside and replaced since it
// was last called (by Begin, Read, Sites or Take), for the caller to tell.
func (l *Ledger) TakeReplaced() []Replaced {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.replaced
	l.replaced = nil
	return r
}

// Replaced tells of a bad ledger moved aside and replaced.
type Replaced struct {
	Path  string    // the ledger
	Aside string    // where the bad one went
	Err   error     // why it could not be read
	Until time.Time // the budget counts as spent until then
}

// classify makes a read error that replacing the ledger cures a
// *badError: a file too large, or one the system refuses to read.
// Others (too many open files, a FIFO put there meanwhile) are kept.
func classify(err error) error {
	var large *safefile.TooLargeError
	if errors.As(err, &large) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EIO) {
		return &badError{err}
	}
	return err
}

// replace moves the bad ledger aside, writes a fresh one recording the
// replacement and returns it. The caller holds the lock.
func (l *Ledger) replace(now time.Time, bad *badError) (*ledgerFile, error) {
	aside, err := safefile.MoveAside(l.path, now)
	if err != nil {
		return nil, fmt.Errorf("%w; moving it aside failed too: %w", bad, err)
	}
	f := &ledgerFile{Keys: Keys{}}
	f.Keys.Set(unknownKey, unknownKey, []time.Time{now})
	if err := l.write(now, f); err != nil {
		return nil, fmt.Errorf("%w; it was moved aside to %s, but %w", bad, filepath.Base(aside), err)
	}
	l.mu.Lock()
	l.replaced = append(l.replaced, Replaced{Path: l.path, Aside: aside, Err: bad.err, Until: now.Add(time.Hour)})
	l.mu.Unlock()
	return f, nil
}

// load reads the ledger and, when it is bad, replaces it under the lock
// (another process may have done so meanwhile: then its fresh ledger is
// read).
func (l *Ledger) load(now time.Time) (*ledgerFile, int, error) {
	f, clamped, err := l.read(now)
	if bad := (*badError)(nil); !errors.As(err, &bad) {
		return f, clamped, err
	}
	lock, lerr := l.lockFile(context.Background())
	if lerr != nil {
		return nil, 0, fmt.Errorf("%w (%w)", err, lerr)
	}
	defer unlock(lock)
	f, clamped, err = l.read(now)
	if bad := (*badError)(nil); errors.As(err, &bad) {
		f, err = l.replace(now, bad)
	}
	return f, clamped, err
}
