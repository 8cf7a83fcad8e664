package collector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/atomicfile"
)

// The state file keeps, across restarts, what the exporter would otherwise
// have to spend budget again to learn: per organization (by key
// fingerprint, never the key) the request times of the sliding hour and
// any back-off, and per unit (project id and collector) its schedule,
// health and the last good data of each window, with the walk in progress.
//
// It is JSON, versioned, written whole to a temporary file that is synced
// and renamed over the old one, so a crash leaves the old or the new file,
// never half of one. A file that cannot be read, is corrupt, bigger than
// maxStateBytes or of another version is logged and ignored: the exporter
// then starts as if it had none.
const (
	stateVersion  = 1
	stateKind     = "mintlify_exporter state"
	maxStateBytes = 512 << 20
)

type stateFile struct {
	Kind    string                     `json:"kind"`
	Version int                        `json:"version"`
	Saved   time.Time                  `json:"saved"`
	Orgs    map[string]orgSnapshot     `json:"orgs"`
	Units   map[string]json.RawMessage `json:"units"`
	units   map[unitID]*unitSnapshot   // decoded Units
}

type orgSnapshot struct {
	Requests    []time.Time `json:"requests"`
	PausedUntil time.Time   `json:"paused_until"`
	// Others are the request times of other processes using the key (the
	// backfill command), by writer: see ShareLedger.
	Others map[string][]time.Time `json:"others,omitempty"`
}

type unitSnapshot struct {
	Health  health                  `json:"health"`
	Round   time.Time               `json:"round"`
	Windows map[string]*windowState `json:"windows"`
}

// savedState is what the state file held at start, until the first config
// claims it.
type savedState = stateFile

func parseUnitID(s string) (unitID, bool) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 || i == len(s)-1 {
		return unitID{}, false
	}
	return unitID{project: s[:i], collector: s[i+1:]}, true
}

// loadState reads the state file, if there is one.
func (e *Exporter) loadState() {
	path := e.opts.StatePath
	if path == "" {
		return
	}
	st, err := readState(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.log.Info("no state file yet; starting afresh", "path", path)
		return
	case err != nil:
		e.log.Warn("ignoring the state file; starting afresh", "path", path, "err", err)
		return
	}
	e.saved = st
	e.log.Info("state loaded", "path", path, "saved", st.Saved, "units", len(st.units), "keys", len(st.Orgs))
}

func readState(path string) (*stateFile, error) {
	st, err := readStateRaw(path)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fs.ErrNotExist
	}
	st.units = map[unitID]*unitSnapshot{}
	for k, raw := range st.Units {
		id, ok := parseUnitID(k)
		if !ok {
			return nil, fmt.Errorf("corrupt: bad unit id %q", k)
		}
		var u unitSnapshot
		if err := json.Unmarshal(raw, &u); err != nil {
			return nil, fmt.Errorf("corrupt: unit %q: %w", k, err)
		}
		st.units[id] = &u
	}
	st.Units = nil
	return st, nil
}

// restoreOrg gives o what the state file remembered of its organization.
func (s *savedState) restoreOrg(o *org, now time.Time) {
	if s == nil {
		return
	}
	snap, ok := s.Orgs[o.fp]
	if !ok {
		return
	}
	o.budget.Restore(snap.Requests)
	o.budget.SetForeign(foreignTimes(s, o.fp, ExporterWriter))
	if snap.PausedUntil.After(now) {
		o.until = snap.PausedUntil
	}
}

// restoreUnit returns the state the file remembered for id, or a new one.
func (s *savedState) restoreUnit(id unitID) *unitState {
	st := &unitState{windows: map[string]*windowState{}}
	if s == nil {
		return st
	}
	snap, ok := s.units[id]
	if !ok {
		return st
	}
	st.health, st.round = snap.Health, snap.Round
	for k, w := range snap.Windows {
		if w != nil {
			st.windows[k] = w
		}
	}
	st.version = 1
	return st
}

// save writes the state file; failures are logged, never fatal: the
// exporter works without it, at the cost of a fresh start next time.
func (e *Exporter) save() { e.saveWith(nil) }

// saveWith is save with a step between reading the requests other
// processes recorded and writing the file, all under the file's lock:
// reserve runs there (when not nil), so a reservation sees every request
// made with the key, and what it reserves is on disk before the lock
// goes. The file is written only if reserve reports true.
func (e *Exporter) saveWith(reserve func() bool) {
	path := e.opts.StatePath
	if path == "" {
		if reserve != nil {
			reserve()
		}
		return
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	// Under the file's lock, so that a backfill recording its requests
	// between our read and our write is not lost (see ShareLedger).
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err == nil {
		if unlock, err := lockState(path); err == nil {
			defer unlock()
		}
	}
	others := e.syncLedgerLocked(path)
	if reserve != nil && !reserve() {
		return
	}
	st := stateFile{Kind: stateKind, Version: stateVersion, Saved: e.clock.Now().UTC(),
		Orgs: maps.Clone(others), Units: map[string]json.RawMessage{}}
	e.storeMu.Lock()
	for fp, o := range e.orgs {
		snap := st.Orgs[fp]
		snap.Requests, snap.PausedUntil = o.budget.Times(), o.pausedUntil()
		st.Orgs[fp] = snap
	}
	states := make(map[unitID]*unitState, len(e.states))
	for id, s := range e.states {
		states[id] = s
	}
	e.storeMu.Unlock()
	for id, s := range states {
		raw, err := s.encode()
		if err != nil {
			e.log.Warn("state of a unit not saved", "unit", id.String(), "err", err)
			continue
		}
		st.Units[id.String()] = raw
	}
	if err := writeState(path, &st); err != nil {
		if e.saveErr == "" || e.saveErr != err.Error() {
			e.log.Warn("writing the state file failed; a restart will start afresh", "path", path, "err", err)
		}
		e.saveErr = err.Error()
		return
	}
	e.saveErr = ""
	if fi, err := os.Stat(path); err == nil {
		e.ledgerSeen = fileStamp{fi.ModTime(), fi.Size()}
	}
}

// fileStamp tells whether a file changed since it was last read or
// written.
type fileStamp struct {
	mod  time.Time
	size int64
}

// syncLedgerLocked counts the requests other processes recorded in the
// state file (see ShareLedger) as each organization's foreign requests,
// when the file changed since the exporter last wrote or read it; the
// caller holds saveMu. It returns the file's
// entries of other writers, by fingerprint, for save to keep.
func (e *Exporter) syncLedgerLocked(path string) map[string]orgSnapshot {
	kept := map[string]orgSnapshot{}
	fi, err := os.Stat(path)
	if err != nil {
		return kept
	}
	stamp := fileStamp{fi.ModTime(), fi.Size()}
	if stamp == e.ledgerSeen && e.ledgerOthers != nil {
		return e.ledgerOthers
	}
	st, err := readStateRaw(path)
	if err != nil || st == nil {
		return kept
	}
	e.ledgerSeen = stamp
	for fp, snap := range st.Orgs {
		if len(snap.Others) > 0 {
			kept[fp] = orgSnapshot{Others: snap.Others}
		}
	}
	e.ledgerOthers = kept
	e.storeMu.Lock()
	for fp, o := range e.orgs {
		o.budget.SetForeign(foreignTimes(st, fp, ExporterWriter))
	}
	e.storeMu.Unlock()
	return kept
}

// encode returns the unit's state as JSON, re-encoding only when it
// changed since the last save.
func (s *unitState) encode() (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.encoded != nil && s.encodedAt == s.changes {
		return s.encoded, nil
	}
	b, err := json.Marshal(unitSnapshot{Health: s.health, Round: s.round, Windows: s.windows})
	if err != nil {
		return nil, err
	}
	s.encoded, s.encodedAt = b, s.changes
	return b, nil
}

func writeState(path string, st *stateFile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(st) })
}
