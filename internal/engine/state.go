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
	// (statefile.go), as 0.1.0 wrote them (testdata/v0.1.0). Versions 1
	// and 2 were written only by development builds before 0.1.0: they
	// are refused (preReleaseVersionError), not migrated.
	stateVersion = 3
	stateKind    = "mintlify_exporter state"
)

// preReleaseVersionError is a state file of a format no release wrote.
type preReleaseVersionError struct{ version int }

func (e preReleaseVersionError) Error() string {
	return fmt.Sprintf("version %d, written by a development build before 0.1.0, which this exporter does not read: move the file aside or delete it, and the exporter fetches its data again", e.version)
}

type stateFile struct {
	Kind    string                     `json:"kind"`
	Version int                        `json:"version"`
	Saved   time.Time                  `json:"saved"`
	Units   map[string]json.RawMessage `json:"units"`
	units   map[unitID]*unitSnapshot   // decoded Units
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
	files, err := statefiles.Open(path, e.log)
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
		if len(dropped) > 0 {
			e.savedAt = -1 // written again, in this version and without them, at the first save
		}
	}
	keys, clamped := files.ReadLedger(now, max(backoffMax, breakerMax))
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
	if st.Version == 1 || st.Version == 2 {
		return nil, nil, preReleaseVersionError{st.Version}
	}
	if st.Version != stateVersion {
		return nil, nil, fmt.Errorf("version %d, this program reads version %d", st.Version, stateVersion)
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
	e.saveLedger()
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
	e.saveLedger()
	e.saveMu.Lock()
	due := !e.clock.Now().Before(e.dataWritten.Add(walkSaveInterval))
	e.saveMu.Unlock()
	if settled || due {
		e.saveData()
		e.saveSites()
	}
}

// saveLedger records the organizations' requests and back-offs in the
// ledger (an update with nothing reserved).
func (e *Engine) saveLedger() {
	e.endLedger(e.beginLedger(), true)
}

// beginLedger starts an update of the ledger: it takes the ledger's lock,
// reads it, and counts the requests other processes recorded for each
// key as the organization's foreign ones, so that a reservation made
// before endLedger sees every request made with the key. The update (nil
// without state files, or when the ledger cannot be used: a reservation
// goes on without it, and the failure is reported) ends with endLedger,
// which must follow.
func (e *Engine) beginLedger() *statefiles.Txn {
	if e.files == nil {
		return nil
	}
	e.saveMu.Lock() // until endLedger
	ctx, cancel := e.lockContext()
	defer cancel()
	tx, err := e.files.BeginLedger(ctx, e.clock.Now())
	if err != nil {
		e.reportSave(statefiles.LedgerFile, err)
		return nil
	}
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	for fp, o := range e.orgs {
		o.budget.SetForeign(tx.Foreign(fp, statefiles.Exporter))
	}
	return tx
}

// endLedger ends the update beginLedger started: with commit, it records
// the organizations' own requests and back-offs and writes the ledger;
// without, it writes nothing.
func (e *Engine) endLedger(tx *statefiles.Txn, commit bool) {
	if e.files == nil {
		return
	}
	defer e.saveMu.Unlock()
	if tx == nil {
		return
	}
	if !commit {
		tx.Abort()
		return
	}
	e.storeMu.Lock()
	for fp, o := range e.orgs {
		tx.Record(fp, statefiles.Exporter, o.budget.Times())
		tx.SetPause(fp, o.pausedUntil())
	}
	e.storeMu.Unlock()
	e.reportSave(statefiles.LedgerFile, e.files.CommitLedger(tx))
}

// reportSave tells Options.OnSave of a write of a state file.
func (e *Engine) reportSave(file string, err error) {
	if e.opts.OnSave != nil {
		e.opts.OnSave(file, err, e.clock.Now())
	}
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
	err := e.files.WriteData(&st)
	e.reportSave(statefiles.DataFile, err)
	if err == nil {
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
	if written, err := e.files.SetSites(ctx, e.clock.Now(), sites); written || err != nil {
		e.reportSave(statefiles.LedgerFile, err)
	}
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
