// Package statefiles keeps the state files beside --storage.path
// (STATE), and knows nothing of Prometheus: its functions return what a
// save did, which the exporter reports into its metrics.
//
//   - STATE, the data cache: per unit (project id and collector) its
//     schedule, health and the last good data of each window, with the
//     walk in progress. Its schema is the engine's
//     (internal/engine/statefile.go); this package reads and writes its bytes.
//   - STATE.ledger, the budget ledger (ledger.go): the requests of
//     the last hour and the back-off per key fingerprint, never the key.
//     A few kilobytes, rewritten on every charged request; the backfill
//     records its requests there too.
//   - STATE.lock, the ledger's lock, and STATE.owner, held by the one
//     exporter that uses these files for as long as it runs (owner.go).
//
// Files are JSON, versioned, written whole (internal/safefile), read
// only as regular files of bounded size. A path that exists as anything
// but a regular file (a link, a device, a FIFO, a directory) stops the
// exporter at start-up: it is never opened nor replaced. A bad ledger is
// moved aside and replaced at once, the hour counted as spent
// (ledgerrecover.go); a data cache that cannot be read is moved aside
// too (MoveDataAside), and the exporter starts afresh.
package statefiles

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// The files a save writes, as the exporter's metrics label them.
const (
	DataFile   = "state"
	LedgerFile = "ledger"
)

// MaxDataBytes bounds the data cache: 80 bytes a path, 100 000 paths a
// walk (max_pages 400 of 250), the month and up to thirty windows of page
// views and visitors. A larger file is refused from its size, before it is
// read.
const MaxDataBytes = 256 << 20

// Files are the state files of one exporter, claimed for as long as it
// runs. A save that fails is logged and reported, never fatal: the
// exporter works without the files, and a restart loads the last ones
// written.
type Files struct {
	path    string
	ledger  *Ledger
	log     *slog.Logger
	release *os.File // the owner file, locked (claim)

	mu    sync.Mutex
	errs  map[string]string // by file: the last save error, logged once
	sites map[string]int    // the walk sizes last recorded in the ledger
}

// Open claims the state files of path (see claim).
func Open(path string, log *slog.Logger) (*Files, error) {
	f := &Files{path: path, ledger: LedgerFor(path), log: log, errs: map[string]string{}}
	release, err := claim(path, f.ledger, log)
	if err != nil {
		return nil, err
	}
	f.release = release
	return f, nil
}

// Path is the data cache's path, --storage.path.
func (f *Files) Path() string { return f.path }

// Close lets the files go for another exporter. It writes nothing.
func (f *Files) Close() {
	if f.release != nil {
		unlock(f.release)
		f.release = nil
	}
}

// SetLockWait bounds the waits for the ledger's lock (MaxLockWait
// unless set).
func (f *Files) SetLockWait(d time.Duration) { f.ledger.SetMaxWait(d) }

// ReadData returns the data cache's bytes: fs.ErrNotExist when there is
// none, an error when it is not a regular file or is larger than
// MaxDataBytes.
func (f *Files) ReadData() ([]byte, error) {
	if err := safefile.CheckTarget(f.path); err != nil {
		return nil, err
	}
	b, err := safefile.Read(f.path, "state file", MaxDataBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fs.ErrNotExist
	}
	return b, err
}

// MoveDataAside moves a data cache that cannot be read aside, to
// STATE.corrupt-<time> (safefile.MoveAside: the newest three are
// kept), rather than let the next save replace it, and returns its new
// path.
func (f *Files) MoveDataAside(now time.Time) (string, error) {
	return safefile.MoveAside(f.path, now)
}

// DataFailing reports whether the last write of the data cache failed, so
// that the next save tries again though nothing changed.
func (f *Files) DataFailing() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs[DataFile] != ""
}

// WriteData writes v, as JSON, whole to the data cache, and returns the
// outcome (logged on a change, see note).
func (f *Files) WriteData(v any) error {
	b, err := json.Marshal(v)
	if err == nil {
		err = safefile.Write(f.path, append(b, '\n'))
	}
	f.note(DataFile, f.path, err)
	return err
}

// note records a write of file and logs a change of state: the first
// failure, a different one, and the first success after failures.
func (f *Files) note(file, path string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.errs[file]
	if err == nil {
		if prev != "" {
			f.log.Info("the "+file+" file is written again", "path", path)
		}
		f.errs[file] = ""
		return
	}
	if prev != err.Error() {
		f.log.Warn("writing the "+file+" file failed; the exporter goes on without it, and a restart would load the last one written", "path", path, "err", err)
	}
	f.errs[file] = err.Error()
}

// SetSites records in the ledger the pages of each project's last complete
// month walk of page views, when they changed since last recorded:
// written is false when nothing was to write (neither a success nor a
// failure).
func (f *Files) SetSites(ctx context.Context, now time.Time, sites map[string]int) (written bool, err error) {
	f.mu.Lock()
	same := len(sites) == 0 || maps.Equal(sites, f.sites)
	f.mu.Unlock()
	if same {
		return false, nil
	}
	t, err := f.BeginLedger(ctx, now)
	if err != nil {
		return false, err
	}
	t.SetSites(sites)
	if err = f.CommitLedger(t); err == nil {
		f.mu.Lock()
		f.sites = sites
		f.mu.Unlock()
	}
	return true, err
}
