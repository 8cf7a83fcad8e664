package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// The state kept across restarts, so that a restart serves data at once
// and spends nothing again, lives in the state files beside
// --storage.path (internal/statefiles): the data cache, whose schema is
// here and in statefile.go, and the budget ledger. A data cache that
// cannot be read (too large, corrupt, of another program or version) is
// moved aside (STATE.corrupt-<time>) and the exporter starts afresh; a
// record in it that fails its checks is dropped (statecheck.go).
const (
	// stateVersion 3: the windows are the exporter's own types
	// (statefile.go). Version 2 files (the API client's types inside) and
	// version 1 files (the ledger inside, moved out to STATE.ledger) are
	// read and migrated (statev2.go).
	stateVersion = 3
	stateKind    = "mintlify_exporter state"
)

type stateFile struct {
	Kind    string    `json:"kind"`
	Version int       `json:"version"`
	Saved   time.Time `json:"saved"`
	// Orgs is version 1's ledger, read to move it to STATE.ledger.
	Orgs  map[string]statefiles.V1Key `json:"orgs,omitempty"`
	Units map[string]json.RawMessage  `json:"units"`
	units map[unitID]*unitSnapshot    // decoded Units
}

type unitSnapshot struct {
	Health  health                     `json:"health"`
	Round   time.Time                  `json:"round"`
	Retired time.Time                  `json:"retired,omitzero"` // unitState.retired
	Windows map[string]json.RawMessage `json:"windows"`          // windowRecord each, decoded one by one
	windows map[string]*windowState    // decoded Windows
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

// openState claims the state files (internal/statefiles), then reads the
// data cache and the ledger. Only a path that must not be touched, or
// another exporter on the same files, is an error: a file that cannot be
// used is logged and ignored.
func (e *Engine) openState(cfg *config.Config) error {
	path := e.opts.StoragePath
	if path == "" {
		return nil
	}
	observe := func(file string, err error) {
		if e.opts.OnSave != nil {
			e.opts.OnSave(file, err, e.clock.Now())
		}
	}
	files, err := statefiles.Open(path, e.log, observe)
	if err != nil {
		return err
	}
	if e.opts.LockWait > 0 {
		files.SetLockWait(e.opts.LockWait)
	}
	e.files = files
	now := e.clock.Now()
	st, dropped, err := readState(files, now)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.log.Info("no state file yet; starting afresh", "path", path)
	case err != nil:
		e.setAside(files, now, err)
	default:
		e.saved = st
		e.log.Info("state loaded", "path", path, "saved", st.Saved, "units", len(st.units))
		e.warnDropped(dropped)
		if st.Version < stateVersion || len(dropped) > 0 {
			e.savedAt = -1 // written again, in this version and without them, at the first save
		}
	}
	var v1 map[string]statefiles.V1Key
	if st != nil {
		v1 = st.Orgs
	}
	keys, clamped := files.ReadLedger(now, v1, max(backoffMax, breakerMax))
	e.ledgerKeys = keys
	if e.saved != nil {
		clamped += e.saved.clamp(now, time.Duration(cfg.Global.MaxRefreshInterval))
	}
	if clamped > 0 {
		e.log.Warn("the state files hold times in the future (the clock was set back, or they come from another machine): they count as now, back-offs end within the hour, and refreshes are due within max_refresh_interval",
			"path", path, "times", clamped)
	}
	return nil
}

// setAside moves a state file that cannot be read aside, so that the
// next save does not replace what it held, and logs it.
func (e *Engine) setAside(files *statefiles.Files, now time.Time, err error) {
	path := files.Path()
	aside, aerr := files.MoveDataAside(now)
	if aerr != nil {
		e.log.Warn("ignoring the state file, which cannot be read: its data is not served, and the next save replaces it (moving it aside failed)",
			"path", path, "err", err, "move_err", aerr)
		return
	}
	e.log.Warn("ignoring the state file, which cannot be read: it was moved aside, and the exporter starts afresh", "path", path, "moved_to", aside, "err", err)
}

// maxDropWarnings bounds the warnings of one load: a file of thousands of
// bad records logs the first ones and how many more there were.
const maxDropWarnings = 10

// warnDropped logs the records of the state file left out at load, one
// warning each (at most maxDropWarnings).
func (e *Engine) warnDropped(dropped []error) {
	for i, err := range dropped {
		if i == maxDropWarnings {
			e.log.Warn("more records of the state file failed their checks and were dropped", "path", e.files.Path(), "more", len(dropped)-i)
			return
		}
		e.log.Warn("a record of the state file failed its checks and was dropped; its data is fetched again", "path", e.files.Path(), "err", err)
	}
}

// closeState writes nothing: it lets the state files go for another
// exporter (Close saves before).
func (e *Engine) closeState() {
	if e.files != nil {
		e.files.Close()
	}
}

// clamp brings the units' times back to now: no success, data or walk
// progress after now, and no next refresh later than maxRefresh from
// now. It returns how many times it changed.
func (s *stateFile) clamp(now time.Time, maxRefresh time.Duration) int {
	n := 0
	notAfter := func(t *time.Time, limit time.Time) {
		if t.After(limit) {
			*t = limit
			n++
		}
	}
	for _, u := range s.units {
		notAfter(&u.Health.LastSuccess, now)
		notAfter(&u.Health.NextRefresh, now.Add(maxRefresh))
		notAfter(&u.Round, now)
		notAfter(&u.Retired, now)
		for _, w := range u.windows {
			if w != nil {
				notAfter(&w.DataTime, now)
				notAfter(&w.Progress, now)
			}
		}
	}
	return n
}

// readState reads the data cache. An error is a file that cannot be
// read at all (not JSON, a wrong type at the top level, another program's
// or version's); a record within it that cannot be read or fails its
// checks (a unit, or one window of a unit) is left out and named in
// dropped, and the rest is served.
func readState(files *statefiles.Files, now time.Time) (st *stateFile, dropped []error, err error) {
	b, err := files.ReadData()
	if err != nil {
		return nil, nil, err
	}
	st = &stateFile{}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, nil, fmt.Errorf("corrupt: %w", err)
	}
	if st.Kind != stateKind {
		return nil, nil, fmt.Errorf("not a state file of this exporter (kind %q)", mintlify.EscapeText(st.Kind))
	}
	if st.Version < 1 || st.Version > stateVersion {
		return nil, nil, fmt.Errorf("version %d, this program reads versions 1 to %d", st.Version, stateVersion)
	}
	st.units = map[unitID]*unitSnapshot{}
	for k, raw := range st.Units {
		u, drops, err := readUnit(k, raw, now)
		for _, d := range drops {
			dropped = append(dropped, fmt.Errorf("unit %q: %w", mintlify.EscapeText(k), d))
		}
		if err != nil {
			dropped = append(dropped, fmt.Errorf("unit %q: %w", mintlify.EscapeText(k), err))
			continue
		}
		id, _ := parseUnitID(k)
		st.units[id] = u
	}
	st.Units = nil
	return st, dropped, nil
}

// readUnit decodes and checks the unit stored as k: an error drops the
// unit; dropped are its windows left out (decodeWindows).
func readUnit(k string, raw json.RawMessage, now time.Time) (u *unitSnapshot, dropped []error, err error) {
	id, ok := parseUnitID(k)
	if !ok {
		return nil, nil, errors.New("not a unit id (project/collector)")
	}
	if _, ok := kind.Lookup(id.collector); !ok {
		return nil, nil, fmt.Errorf("unknown collector %q", mintlify.EscapeText(id.collector))
	}
	u = &unitSnapshot{}
	if err := json.Unmarshal(raw, u); err != nil {
		return nil, nil, err
	}
	if err := u.Health.check(); err != nil {
		return nil, nil, fmt.Errorf("health: %w", err)
	}
	u.windows, dropped = decodeWindows(id.collector, u.Windows, now)
	u.Windows = nil
	if len(dropped) > 0 {
		u.Health.NextRefresh = time.Time{} // due at once, to fetch what was dropped
	}
	return u, dropped, nil
}

// restoreOrg gives o what the ledger remembered of its organization.
func (e *Engine) restoreOrg(o *org, now time.Time) {
	entry, ok := e.ledgerKeys[o.fp]
	if !ok {
		return
	}
	o.budget.Restore(entry.Own)
	o.budget.SetForeign(entry.Foreign)
	if entry.PausedUntil.After(now) {
		o.until = entry.PausedUntil
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
	st.health, st.round, st.retired = snap.Health, snap.Round, snap.Retired
	for k, w := range snap.windows {
		if w != nil {
			st.windows[k] = w
		}
	}
	st.version = 1
	return st
}

// save writes what changed: the ledger, and the data cache if any unit's
// state changed since it was last written. Failures are logged and
// counted, never fatal: the exporter works without the files, and a
// restart loads the last ones written.
func (e *Engine) save() {
	e.saveWith(nil)
	e.saveData()
	e.saveSites()
}

// walkSaveInterval bounds how often the data cache is rewritten while a
// round runs on: a first walk of a large site spends its grant a few pages
// at a time, and rewriting a state of megabytes after each few pages
// would write it hundreds of times over (50 times, growing to 9 MiB, for
// 100 000 paths).
const walkSaveInterval = time.Minute

// saveProgress writes what one run of the scheduler changed: the ledger
// always (the requests are spent), the data cache and the sites when the
// run ended a unit's round (settled) or walkSaveInterval has passed since
// the data cache was last written. The scheduler writes the data cache
// when it stops (drain) and Close does, so a walk's pages are on disk as
// soon as the refresh pauses; a crash in between loses at most a minute of
// them, never the record of the requests.
func (e *Engine) saveProgress(settled bool) {
	e.saveWith(nil)
	e.saveMu.Lock()
	due := !e.clock.Now().Before(e.dataWritten.Add(walkSaveInterval))
	e.saveMu.Unlock()
	if settled || due {
		e.saveData()
		e.saveSites()
	}
}

// saveWith updates the ledger, under its lock: it counts the requests
// other processes recorded for each key as the organization's foreign
// ones, runs reserve (when not nil; a reservation then sees every request
// made with the key), and records the organizations' own requests and
// back-offs, unless reserve reports false. A ledger that cannot be used
// does not stop reserve.
func (e *Engine) saveWith(reserve func() bool) {
	if e.files == nil {
		if reserve != nil {
			reserve()
		}
		return
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	ctx, cancel := e.lockContext()
	defer cancel()
	seen := func(foreign func(fp string) []time.Time) {
		e.storeMu.Lock()
		defer e.storeMu.Unlock()
		for fp, o := range e.orgs {
			o.budget.SetForeign(foreign(fp))
		}
	}
	own := func() map[string]statefiles.Own {
		e.storeMu.Lock()
		defer e.storeMu.Unlock()
		m := make(map[string]statefiles.Own, len(e.orgs))
		for fp, o := range e.orgs {
			m[fp] = statefiles.Own{Requests: o.budget.Times(), PausedUntil: o.pausedUntil()}
		}
		return m
	}
	e.files.UpdateLedger(ctx, e.clock.Now(), seen, reserve, own)
}

// saveData writes the data cache if a unit's state changed since it was
// last written.
func (e *Engine) saveData() {
	if e.files == nil {
		return
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	e.storeMu.Lock()
	forgot := e.forgetRetired(e.clock.Now())
	states := make(map[unitID]*unitState, len(e.states))
	changes := 0
	for id, s := range e.states {
		states[id] = s
		s.mu.Lock()
		changes += s.changes
		s.mu.Unlock()
	}
	e.storeMu.Unlock()
	if changes == e.savedAt && !forgot && !e.files.DataFailing() {
		return
	}
	e.dataWritten = e.clock.Now()
	st := stateFile{Kind: stateKind, Version: stateVersion, Saved: e.clock.Now().UTC(), Units: map[string]json.RawMessage{}}
	for id, s := range states {
		raw, err := s.encode()
		if err != nil {
			e.log.Warn("state of a unit not saved", "unit", id.String(), "err", err)
			continue
		}
		st.Units[id.String()] = raw
	}
	if err := e.files.WriteData(&st); err == nil {
		e.savedAt = changes
	}
}

// saveSites records in the ledger the pages of each project's last
// complete month walk of page views, when they changed: what a day of the
// project costs the backfill, which reads them for its estimate.
func (e *Engine) saveSites() {
	if e.files == nil {
		return
	}
	sites := map[string]int{}
	for _, u := range e.current().units {
		if u.id.collector != source.Views {
			continue
		}
		u.state.mu.Lock()
		if ws := u.state.windows[monthWindow.key()]; ws != nil && ws.Hint > 0 {
			sites[u.id.project] = ws.Hint
		}
		u.state.mu.Unlock()
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	ctx, cancel := e.lockContext()
	defer cancel()
	e.files.SetSites(ctx, e.clock.Now(), sites)
}

// encode returns the unit's state as JSON, re-encoding only when it
// changed since the last save.
func (s *unitState) encode() (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.encoded != nil && s.encodedAt == s.changes {
		return s.encoded, nil
	}
	windows, err := encodeWindows(s.windows)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(unitSnapshot{Health: s.health, Round: s.round, Retired: s.retired, Windows: windows})
	if err != nil {
		return nil, err
	}
	s.encoded, s.encodedAt = b, s.changes
	return b, nil
}
