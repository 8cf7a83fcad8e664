package statefiles

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// An unreadable ledger of ours would fail every save for ever: it is moved aside and replaced, and the
// next hour counts as spent since what it held is unknown. unknownKey, which no fingerprint can be, holds that time.
const unknownKey = "unknown"

type badError struct{ err error }

func (e *badError) Error() string { return e.err.Error() }
func (e *badError) Unwrap() error { return e.err }

// TakeReplaced returns the bad ledgers replaced since it was last called, for the caller to tell.
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

func classify(err error) error {
	if safefile.Curable(err) {
		return &badError{err}
	}
	return err
}

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

// load replaces a bad ledger under the lock, reading again first: another process may have replaced it.
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
