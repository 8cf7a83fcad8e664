package statefiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// The ledger keeps the exporter and the backfill together within a key's hourly budget; STATE.lock locks it, as the ledger is replaced by rename.
const (
	ledgerKind    = "mintlify_exporter ledger"
	ledgerVersion = 1
	// MaxLedgerBytes: an hour of requests per writer and key fits many times over.
	MaxLedgerBytes = 4 << 20
	// MaxSitePages is above any walk the state file holds; a value out of range is read as none.
	MaxSitePages = 1 << 20
	// Exporter is the exporter's name among the writers.
	Exporter = "exporter"
)

// Entry is what the ledger holds of one key.
type Entry struct {
	// Writers are the request times of the last hour, by writer.
	Writers map[string][]time.Time `json:"writers,omitempty"`
	// PausedUntil is the exporter's back-off after a 429 or an outage.
	PausedUntil time.Time `json:"paused_until,omitzero"`
}

// Keys are the ledger's entries, by key fingerprint.
type Keys map[string]Entry

// Foreign is every request time of fp but writer's; for an hour after a bad ledger was replaced, a full budget more.
func (k Keys) Foreign(fp, writer string) []time.Time {
	var out []time.Time
	for name, times := range k[fp].Writers {
		if name != writer {
			out = append(out, times...)
		}
	}
	if fp != unknownKey {
		for _, t := range k[unknownKey].Writers[unknownKey] {
			out = append(out, slices.Repeat([]time.Time{t}, budget.MaxRecorded)...)
		}
	}
	return out
}

// Set records writer's request times for key fp.
func (k Keys) Set(fp, writer string, times []time.Time) {
	e := k[fp]
	if e.Writers == nil {
		e.Writers = map[string][]time.Time{}
	}
	e.Writers[writer] = times
	k[fp] = e
}

type ledgerFile struct {
	Kind    string         `json:"kind"`
	Version int            `json:"version"`
	Saved   time.Time      `json:"saved"`
	Keys    Keys           `json:"keys"`
	Sites   map[string]int `json:"sites,omitempty"`
}

// Ledger is the ledger of one state file.
type Ledger struct {
	path, lock string
	stuck      atomic.Bool   // the last wait for the lock ran out (see lock)
	maxWait    time.Duration // MaxLockWait when 0; tests shorten it

	mu       sync.Mutex
	replaced []Replaced // not yet taken by TakeReplaced
}

// LedgerFor is the ledger of the state file at statePath.
func LedgerFor(statePath string) *Ledger {
	return &Ledger{path: statePath + ".ledger", lock: statePath + ".lock"}
}

// Path is the ledger file's path; LockPath the lock file's.
func (l *Ledger) Path() string     { return l.path }
func (l *Ledger) LockPath() string { return l.lock }

// Read returns the ledger's entries; a time after now counts as now, since dropped it would open the budget early.
func (l *Ledger) Read(now time.Time) (keys Keys, clamped int, err error) {
	f, clamped, err := l.load(now)
	if f == nil {
		return nil, clamped, err
	}
	return f.Keys, clamped, err
}

// Sites returns each project's last month-walk size, by project id.
func (l *Ledger) Sites() (map[string]int, error) {
	f, _, err := l.load(time.Now())
	if f == nil {
		return nil, err
	}
	return f.Sites, err
}

func (l *Ledger) read(now time.Time) (*ledgerFile, int, error) {
	if err := safefile.CheckTarget(l.path); err != nil {
		return nil, 0, err
	}
	b, err := safefile.Read(l.path, "ledger", MaxLedgerBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, classify(err)
	}
	var f ledgerFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, 0, &badError{fmt.Errorf("ledger %s is corrupt: %w", l.path, err)}
	}
	if f.Kind != ledgerKind || f.Version != ledgerVersion {
		return nil, 0, fmt.Errorf("%s is not a ledger of this exporter (kind %q, version %d)", l.path, f.Kind, f.Version)
	}
	clamped := 0
	for fp, e := range f.Keys {
		for w, times := range e.Writers {
			for i, t := range times {
				if t.After(now) {
					times[i] = now
					clamped++
				}
			}
			e.Writers[w] = times
		}
		f.Keys[fp] = e
	}
	if f.Keys == nil {
		f.Keys = Keys{}
	}
	for id, pages := range f.Sites {
		if pages < 1 || pages > MaxSitePages {
			delete(f.Sites, id) // no walk of that size: the estimate goes without it
		}
	}
	return &f, clamped, nil
}

// Txn is an update of the ledger under its lock, ended by Commit or Abort.
type Txn struct {
	l      *Ledger
	lock   *os.File
	now    time.Time
	f      *ledgerFile
	closed bool
}

// Begin locks and reads the ledger, replacing a bad one of ours first; on an error the lock is not held.
func (l *Ledger) Begin(ctx context.Context, now time.Time) (*Txn, error) {
	lock, err := l.lockFile(ctx)
	if err != nil {
		return nil, err
	}
	f, _, err := l.read(now)
	if bad := (*badError)(nil); errors.As(err, &bad) {
		f, err = l.replace(now, bad)
	}
	if err != nil {
		unlock(lock)
		return nil, err
	}
	if f == nil {
		f = &ledgerFile{Keys: Keys{}}
	}
	return &Txn{l: l, lock: lock, now: now, f: f}, nil
}

// Foreign is every request of fp by writers other than writer.
func (t *Txn) Foreign(fp, writer string) []time.Time { return t.f.Keys.Foreign(fp, writer) }

// Record sets writer's request times for key fp.
func (t *Txn) Record(fp, writer string, times []time.Time) { t.f.Keys.Set(fp, writer, times) }

// SetPause sets key fp's back-off (the exporter's).
func (t *Txn) SetPause(fp string, until time.Time) {
	e := t.f.Keys[fp]
	e.PausedUntil = until
	t.f.Keys[fp] = e
}

// SetSites records the pages of the projects' last complete month walks.
func (t *Txn) SetSites(sites map[string]int) { t.f.Sites = sites }

// Commit writes the ledger whole, times pruned to the last hour, and lets the lock go.
func (t *Txn) Commit() error {
	if t.closed {
		return fmt.Errorf("ledger %s: the update already ended", t.l.path)
	}
	defer t.Abort()
	return t.l.write(t.now, t.f)
}

// Abort lets the lock go, writing nothing.
func (t *Txn) Abort() {
	if !t.closed {
		t.closed = true
		unlock(t.lock)
	}
}

// Write replaces the ledger's entries with keys, under its lock.
func (l *Ledger) Write(now time.Time, keys Keys) error {
	t, err := l.Begin(context.Background(), now)
	if err != nil {
		return err
	}
	t.f.Keys = keys
	return t.Commit()
}

func (l *Ledger) write(now time.Time, f *ledgerFile) error {
	hourAgo := now.Add(-time.Hour)
	keys := f.Keys
	for fp, e := range keys {
		for w, times := range e.Writers {
			kept := times[:0:0]
			for _, t := range times {
				if t.After(hourAgo) {
					kept = append(kept, t)
				}
			}
			if len(kept) == 0 {
				delete(e.Writers, w)
			} else {
				e.Writers[w] = kept
			}
		}
		if len(e.Writers) == 0 && !e.PausedUntil.After(now) {
			delete(keys, fp)
		}
	}
	f.Kind, f.Version, f.Saved = ledgerKind, ledgerVersion, now.UTC()
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return safefile.Write(l.path, append(b, '\n'))
}

// Take spends one request of fp's budget through w for another process (writer), counting everyone else's as foreign.
func (l *Ledger) Take(ctx context.Context, fp, writer string, w *budget.Window, now time.Time) (took bool, err error) {
	if writer == Exporter {
		return false, errors.New("the exporter does not take through Take")
	}
	t, err := l.Begin(ctx, now)
	if err != nil {
		return false, err
	}
	w.SetForeign(t.Foreign(fp, writer))
	took = w.TryTake()
	t.Record(fp, writer, w.Times())
	return took, t.Commit()
}

// Usage gives w fp's last hour from the ledger, writer's own too, so a resumed backfill counts what it spent.
func (l *Ledger) Usage(fp, writer string, w *budget.Window, now time.Time) error {
	keys, _, err := l.Read(now)
	if err != nil {
		return err
	}
	w.Restore(keys[fp].Writers[writer])
	w.SetForeign(keys.Foreign(fp, writer))
	return nil
}
