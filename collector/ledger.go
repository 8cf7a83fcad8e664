package collector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/filelock"
)

// The shared ledger: other processes using a key (the backfill command)
// record their analytics requests in the state file, beside the
// exporter's, so that together they stay within the key's hourly budget.
// Each writer owns its list of request times (orgSnapshot.Others[writer];
// the exporter's are orgSnapshot.Requests) and counts everyone else's as
// foreign (budget.Window.SetForeign). Reads and writes of the file by
// several processes hold an exclusive flock(2) on PATH.lock: the file
// itself is replaced by rename, so it cannot carry the lock. Without
// flock(2) the ledger is not locked: the exporter
// and the backfill may then miss each other's latest requests.

// ExporterWriter is the exporter's name in the ledger.
const ExporterWriter = "exporter"

// KeyFingerprint names a key in the state file without revealing it.
func KeyFingerprint(key string) string { return fingerprint(key) }

// lockState takes the exclusive lock of the state file at path and
// returns its release.
func lockState(path string) (func(), error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := filelock.Lock(f, true); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = filelock.Unlock(f); f.Close() }, nil
}

// foreignTimes is every request time of fp in st except writer's own.
func foreignTimes(st *stateFile, fp, writer string) []time.Time {
	if st == nil {
		return nil
	}
	snap, ok := st.Orgs[fp]
	if !ok {
		return nil
	}
	var out []time.Time
	if writer != ExporterWriter {
		out = append(out, snap.Requests...)
	}
	for name, times := range snap.Others {
		if name != writer {
			out = append(out, times...)
		}
	}
	return out
}

// readStateRaw reads the state file without decoding the units, which
// are carried over as they are. A missing file is (nil, nil). It reads a
// regular file only, and no more than maxStateBytes of it.
func readStateRaw(path string) (*stateFile, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxStateBytes {
		return nil, fmt.Errorf("larger than %d MiB", maxStateBytes>>20)
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("corrupt: %w", err)
	}
	if st.Kind != stateKind {
		return nil, fmt.Errorf("not a state file of this exporter (kind %q)", st.Kind)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("version %d, this program reads version %d", st.Version, stateVersion)
	}
	return &st, nil
}

// ShareLedger is one step of another process (writer, e.g. "backfill")
// spending key fp's budget through window w: under the lock of the state
// file at path, it counts the requests the file records for fp by anyone
// else as w's foreign ones, runs fn (which may take from w), and records
// w's own request times as writer's. Everything else in the file is kept.
// A file that is not this exporter's state file, or of another version,
// is an error and is left alone.
func ShareLedger(path, fp, writer string, w *budget.Window, now time.Time, fn func()) error {
	if writer == ExporterWriter {
		return errors.New("the exporter does not share through ShareLedger")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	unlock, err := lockState(path)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := readStateRaw(path)
	if err != nil {
		return fmt.Errorf("state file %s: %w", path, err)
	}
	if st == nil {
		st = &stateFile{Kind: stateKind, Version: stateVersion, Orgs: map[string]orgSnapshot{}, Units: map[string]json.RawMessage{}}
	}
	if st.Orgs == nil {
		st.Orgs = map[string]orgSnapshot{}
	}
	w.SetForeign(foreignTimes(st, fp, writer))
	fn()
	snap := st.Orgs[fp]
	if snap.Others == nil {
		snap.Others = map[string][]time.Time{}
	}
	snap.Others[writer] = w.Times()
	st.Orgs[fp] = snap
	st.Saved = now.UTC()
	return writeState(path, st)
}

// LedgerUsage gives w what the state file at path records of key fp in
// the last hour, without changing the file: writer's own request times
// (so that a process started again, such as a resumed backfill, counts
// what it spent before) and everyone else's as foreign. A missing file
// gives nothing.
func LedgerUsage(path, fp, writer string, w *budget.Window) error {
	st, err := readStateRaw(path)
	if err != nil {
		return fmt.Errorf("state file %s: %w", path, err)
	}
	if st != nil {
		w.Restore(st.Orgs[fp].Others[writer])
		w.SetForeign(foreignTimes(st, fp, writer))
	}
	return nil
}
