// Package statefiles keeps the data cache, the budget ledger (fingerprints, never keys), its lock and the owner file
// beside --storage.path: bounded regular files only, written whole; a link or anything else there stops the start.
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

// MaxDataBytes bounds the data cache: 100 000 paths of 80 bytes and thirty windows fit; more is refused unread.
const MaxDataBytes = 256 << 20

// Files are one exporter's state files; a failed save is logged, never fatal, as the exporter works without them.
type Files struct {
	path    string
	ledger  *Ledger
	log     *slog.Logger
	release *os.File // the owner file, locked (claim)

	mu    sync.Mutex
	errs  map[string]string // by file: the last save error, logged once
	sites map[string]int    // the walk sizes last recorded in the ledger
}

// Open claims the state files of path.
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

// Close lets the files go for another exporter; it writes nothing.
func (f *Files) Close() {
	if f.release != nil {
		unlock(f.release)
		f.release = nil
	}
}

// SetLockWait bounds the waits for the ledger's lock (MaxLockWait unless set).
func (f *Files) SetLockWait(d time.Duration) { f.ledger.SetMaxWait(d) }

// ReadData returns the data cache's bytes, or fs.ErrNotExist.
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

// MoveDataAside keeps an unreadable data cache as STATE.corrupt-<time> rather than let the next save replace it.
func (f *Files) MoveDataAside(now time.Time) (string, error) {
	return safefile.MoveAside(f.path, now)
}

// DataFailing reports whether the last data write failed, so the next save retries though nothing changed.
func (f *Files) DataFailing() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs[DataFile] != ""
}

// WriteData writes v as JSON, whole, to the data cache.
func (f *Files) WriteData(v any) error {
	b, err := json.Marshal(v)
	if err == nil {
		err = safefile.Write(f.path, append(b, '\n'))
	}
	f.note(DataFile, f.path, err)
	return err
}

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

// SetSites records each project's last month-walk size in the ledger, when changed; written is false when nothing was to write.
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
