package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// The data cache (schema here and in statefile.go) and the ledger serve data at once after a restart and
// spend nothing again. An unreadable cache is moved aside (STATE.corrupt-<time>); a bad record is dropped.
const (
	// stateVersion 3 is what 0.1.0 wrote (testdata/v0.1.0); 1 and 2 were development builds only: refused.
	stateVersion = 3
	stateKind    = "mintlify_exporter state"
)

type stateFile struct {
	Kind    string                     `json:"kind"`
	Version int                        `json:"version"`
	Saved   time.Time                  `json:"saved"`
	Units   map[string]json.RawMessage `json:"units"`
	units   map[unitID]*unitSnapshot   // decoded Units
}

type unitSnapshot struct {
	Health  health                     `json:"health"`
	Begun   time.Time                  `json:"round"`            // unitState.begun; the key is 0.1.0's
	Retired time.Time                  `json:"retired,omitzero"` // unitState.retired
	Windows map[string]json.RawMessage `json:"windows"`          // windowRecord each, decoded one by one
	windows map[string]*windowState    // decoded Windows
}

func parseUnitID(s string) (unitID, bool) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 || i == len(s)-1 {
		return unitID{}, false
	}
	return unitID{project: s[:i], collector: s[i+1:]}, true
}

// openState: only a path that must not be touched, or another exporter on the files, is an error.
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
	st, dropped, err := readState(files, now, e.opts.Collectors)
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

// setAside keeps the next save from replacing what an unreadable file held.
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

// maxDropWarnings: a file of thousands of bad records logs the first ones and a count.
const maxDropWarnings = 10

func (e *Engine) warnDropped(dropped []error) {
	for i, err := range dropped {
		if i == maxDropWarnings {
			e.log.Warn("more records of the state file failed their checks and were dropped", "path", e.files.Path(), "more", len(dropped)-i)
			return
		}
		e.log.Warn("a record of the state file failed its checks and was dropped; its data is fetched again", "path", e.files.Path(), "err", err)
	}
}

// closeState writes nothing (Close saved before); it lets the files go for another exporter.
func (e *Engine) closeState() {
	if e.files != nil {
		e.files.Close()
	}
}

// clamp brings times after now back to now, and next refreshes to within maxRefresh.
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
		notAfter(&u.Begun, now)
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

// readState: an error is a file unreadable as a whole; a bad record is left out, named in dropped.
func readState(files *statefiles.Files, now time.Time, collectors spec.List) (st *stateFile, dropped []error, err error) {
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
		return nil, nil, fmt.Errorf("version %d, written by a development build before 0.1.0, which this exporter does not read: move the file aside or delete it, and the exporter fetches its data again", st.Version)
	}
	if st.Version != stateVersion {
		return nil, nil, fmt.Errorf("version %d, this program reads version %d", st.Version, stateVersion)
	}
	st.units = map[unitID]*unitSnapshot{}
	for k, raw := range st.Units {
		u, drops, err := readUnit(k, raw, now, collectors)
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

func readUnit(k string, raw json.RawMessage, now time.Time, collectors spec.List) (u *unitSnapshot, dropped []error, err error) {
	id, ok := parseUnitID(k)
	if !ok {
		return nil, nil, errors.New("not a unit id (project/collector)")
	}
	c, ok := collectors.Lookup(id.collector)
	if !ok {
		return nil, nil, fmt.Errorf("unknown collector %q", mintlify.EscapeText(id.collector))
	}
	u = &unitSnapshot{}
	if err := json.Unmarshal(raw, u); err != nil {
		return nil, nil, err
	}
	if err := u.Health.check(); err != nil {
		return nil, nil, fmt.Errorf("health: %w", err)
	}
	u.windows, dropped = decodeWindows(c, u.Windows, now)
	u.Windows = nil
	if len(dropped) > 0 {
		u.Health.NextRefresh = time.Time{} // due at once, to fetch what was dropped
	}
	return u, dropped, nil
}

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

func (s *stateFile) restoreUnit(id unitID) *unitState {
	st := &unitState{windows: map[string]*windowState{}}
	if s == nil || s.units[id] == nil {
		return st
	}
	snap := s.units[id]
	st.health, st.begun, st.retired = snap.Health, snap.Begun, snap.Retired
	for k, w := range snap.windows {
		if w != nil {
			st.windows[k] = w
		}
	}
	st.version = 1
	return st
}

// save failures are logged and counted, never fatal: a restart loads the last files written.
func (e *Engine) save() {
	e.saveLedger()
	e.saveData()
	e.saveSites()
}

// walkSaveInterval: rewriting megabytes after every few pages of a first walk would write it hundreds of times.
const walkSaveInterval = time.Minute

// saveProgress always writes the ledger (the requests are spent), the data cache only when a refresh settled
// or walkSaveInterval passed: a crash loses at most a minute of pages, never the record of requests.
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

func (e *Engine) saveLedger() {
	e.endLedger(e.beginLedger(), true)
}

// beginLedger takes the ledger's lock and counts other processes' requests with each key, so a reservation
// before endLedger sees them all; nil without usable state files (reservations go on). endLedger must follow.
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

// endLedger writes the organizations' requests and back-offs with commit, nothing without.
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

func (e *Engine) reportSave(file string, err error) {
	if e.opts.OnSave != nil {
		e.opts.OnSave(file, err, e.clock.Now())
	}
}

func (e *Engine) saveData() {
	if e.files == nil {
		return
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	e.storeMu.Lock()
	forgot := e.forgetRetired(e.clock.Now())
	states := maps.Clone(e.states)
	changes := 0
	for _, s := range states {
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

// saveSites records each project's last month walk's pages: the backfill's estimate of a day's cost.
func (e *Engine) saveSites() {
	if e.files == nil {
		return
	}
	sites := map[string]int{}
	for _, u := range e.current().units {
		if !u.collector.Walk {
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
	b, err := json.Marshal(unitSnapshot{Health: s.health, Begun: s.begun, Retired: s.retired, Windows: windows})
	if err != nil {
		return nil, err
	}
	s.encoded, s.encodedAt = b, s.changes
	return b, nil
}

// closeLockWait: the last save may wait out a backfill's brief hold, never a long one, so shutdown ends in time.
const closeLockWait = 2 * time.Second

// lockContext: the exporter's context while it runs (Close cancels it), then closeLockWait for the last save.
func (e *Engine) lockContext() (context.Context, context.CancelFunc) {
	if e.ctx != nil && e.ctx.Err() == nil {
		return e.ctx, func() {}
	}
	return context.WithTimeout(context.Background(), closeLockWait)
}
