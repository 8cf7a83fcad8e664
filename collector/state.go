package collector

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/atomicfile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/boundedfile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/ledger"
)

// The state kept across restarts, so that a restart serves data at once
// and spends nothing again, lives in files beside --storage.path (STATE):
//
//   - STATE, the data cache: per unit (project id and collector) its
//     schedule, health and the last good data of each window, with the
//     walk in progress. About 80 bytes a path; rewritten only when the
//     data changed.
//   - STATE.ledger, the budget ledger (internal/ledger): the requests of
//     the last hour and the back-off per key fingerprint, never the key.
//     A few kilobytes, rewritten on every charged request; the backfill
//     records its requests there too.
//   - STATE.lock, the ledger's lock, and STATE.owner, held by the one
//     exporter that uses these files for as long as it runs.
//
// Files are JSON, versioned, written whole (internal/atomicfile), read
// only as regular files of bounded size. A path that exists as anything
// but a regular file (a link, a device, a FIFO, a directory) stops the
// exporter at start-up: it is never opened nor replaced. A state file
// that is too large, corrupt or of another version is logged once and
// ignored; the next save replaces it. A bad ledger is moved aside and
// replaced at once, the hour counted as spent (internal/ledger).
const (
	// stateVersion 3: the windows are the exporter's own types
	// (statefile.go). Version 2 files (the API client's types inside) and
	// version 1 files (the ledger inside, moved out to STATE.ledger) are
	// read and migrated (statev2.go).
	stateVersion = 3
	stateKind    = "mintlify_exporter state"
	// maxStateBytes bounds the data cache: 80 bytes a path, 100 000 paths
	// a walk (max_pages 400 of 250), the month and up to thirty windows
	// of page views and visitors. A larger file is refused from its size,
	// before it is read.
	maxStateBytes = 256 << 20
)

type stateFile struct {
	Kind    string    `json:"kind"`
	Version int       `json:"version"`
	Saved   time.Time `json:"saved"`
	// Orgs is version 1's ledger, read to move it to STATE.ledger.
	Orgs  map[string]orgSnapshot     `json:"orgs,omitempty"`
	Units map[string]json.RawMessage `json:"units"`
	units map[unitID]*unitSnapshot   // decoded Units
}

// orgSnapshot is what a version 1 state file kept of a key.
type orgSnapshot struct {
	Requests    []time.Time            `json:"requests"`
	PausedUntil time.Time              `json:"paused_until"`
	Others      map[string][]time.Time `json:"others,omitempty"`
}

type unitSnapshot struct {
	Health  health                   `json:"health"`
	Round   time.Time                `json:"round"`
	Windows map[string]*windowRecord `json:"windows"`
	windows map[string]*windowState  // decoded Windows
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

// openState claims the state files (see owner.go), then reads the data
// cache and the ledger. Only a path that must not be touched, or another
// exporter on the same files, is an error: a file that cannot be used is
// logged and ignored.
func (e *Exporter) openState(cfg *config.Config) error {
	path := e.opts.StoragePath
	if path == "" {
		return nil
	}
	e.ledger = ledger.For(path)
	e.ledger.OnReplaced = e.ledgerReplaced
	e.saveErr = map[string]string{}
	release, err := claimState(path, e.ledger, e.log)
	if err != nil {
		return err
	}
	e.releaseLock = release
	now := e.clock.Now()
	st, err := readState(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.log.Info("no state file yet; starting afresh", "path", path)
	case err != nil:
		e.log.Warn("ignoring the state file: its data is not served, and the next save replaces it", "path", path, "err", err)
	default:
		e.saved = st
		e.log.Info("state loaded", "path", path, "saved", st.Saved, "units", len(st.units))
		if st.Version < stateVersion {
			e.savedAt = -1 // written again, in this version, at the first save
		}
	}
	keys, clampedLedger, err := e.ledger.Read(now)
	if err != nil {
		e.log.Warn("ignoring the ledger, which could not be read nor replaced: the budget counts only this process's requests until it can be, and saves of the ledger fail meanwhile", "path", e.ledger.Path(), "err", err)
		keys = nil
	}
	if keys == nil && st != nil && len(st.Orgs) > 0 {
		keys = migrateLedger(st.Orgs, now)
		e.log.Info("the ledger moved out of the state file of an earlier version", "path", e.ledger.Path(), "keys", len(keys))
	}
	e.ledgerKeys = keys
	clamped := clampLedger(keys, now) + clampedLedger
	if e.saved != nil {
		clamped += e.saved.clamp(now, time.Duration(cfg.Global.MaxRefreshInterval))
	}
	if clamped > 0 {
		e.log.Warn("the state files hold times in the future (the clock was set back, or they come from another machine): they count as now, back-offs end within the hour, and refreshes are due within max_refresh_interval",
			"path", path, "times", clamped)
	}
	return nil
}

// closeState writes nothing: it lets the state files go for another
// exporter (Close saves before).
func (e *Exporter) closeState() {
	if e.releaseLock != nil {
		e.releaseLock()
		e.releaseLock = nil
	}
}

// migrateLedger is a version 1 state file's ledger, as the ledger holds it.
func migrateLedger(orgs map[string]orgSnapshot, now time.Time) ledger.Keys {
	keys := ledger.Keys{}
	for fp, snap := range orgs {
		keys.Set(fp, ledger.Exporter, snap.Requests)
		for w, times := range snap.Others {
			keys.Set(fp, w, times)
		}
		e := keys[fp]
		e.PausedUntil = snap.PausedUntil
		keys[fp] = e
	}
	return keys
}

// clampLedger ends the back-offs that would last past the longest one
// the exporter sets. It returns how many it changed.
func clampLedger(keys ledger.Keys, now time.Time) int {
	n := 0
	for fp, e := range keys {
		if limit := now.Add(max(backoffMax, breakerMax)); e.PausedUntil.After(limit) {
			e.PausedUntil = limit
			keys[fp] = e
			n++
		}
	}
	return n
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
		for _, w := range u.windows {
			if w != nil {
				notAfter(&w.DataTime, now)
				notAfter(&w.Progress, now)
			}
		}
	}
	return n
}

func readState(path string) (*stateFile, error) {
	if err := atomicfile.CheckTarget(path); err != nil {
		return nil, err
	}
	b, err := boundedfile.Read(path, "state file", maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fs.ErrNotExist
	}
	if err != nil {
		return nil, err
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("corrupt: %w", err)
	}
	if st.Kind != stateKind {
		return nil, fmt.Errorf("not a state file of this exporter (kind %q)", st.Kind)
	}
	if st.Version < 1 || st.Version > stateVersion {
		return nil, fmt.Errorf("version %d, this program reads versions 1 to %d", st.Version, stateVersion)
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
		windows, err := decodeWindows(id.collector, u.Windows)
		if err != nil {
			return nil, fmt.Errorf("corrupt: unit %q: %w", k, err)
		}
		u.windows, u.Windows = windows, nil
		st.units[id] = &u
	}
	st.Units = nil
	return &st, nil
}

// restoreOrg gives o what the ledger remembered of its organization.
func (e *Exporter) restoreOrg(o *org, now time.Time) {
	entry, ok := e.ledgerKeys[o.fp]
	if !ok {
		return
	}
	o.budget.Restore(entry.Writers[ledger.Exporter])
	o.budget.SetForeign(e.ledgerKeys.Foreign(o.fp, ledger.Exporter))
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
	st.health, st.round = snap.Health, snap.Round
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
func (e *Exporter) save() {
	e.saveWith(nil)
	e.saveData()
	e.saveSites()
}

// saveWith updates the ledger, under its lock: it counts the requests
// other processes recorded for each key as the organization's foreign
// ones, runs reserve (when not nil; a reservation then sees every request
// made with the key), and records the organizations' own requests and
// back-offs, unless reserve reports false. A ledger that cannot be used
// does not stop reserve.
func (e *Exporter) saveWith(reserve func() bool) {
	if e.ledger == nil {
		if reserve != nil {
			reserve()
		}
		return
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	ctx, cancel := e.lockContext()
	defer cancel()
	ran := false
	written, err := e.ledger.UpdateContext(ctx, e.clock.Now(), func(keys ledger.Keys) bool {
		e.storeMu.Lock()
		for fp, o := range e.orgs {
			o.budget.SetForeign(keys.Foreign(fp, ledger.Exporter))
		}
		e.storeMu.Unlock()
		ran = true
		if reserve != nil && !reserve() {
			return false
		}
		e.storeMu.Lock()
		for fp, o := range e.orgs {
			keys.Set(fp, ledger.Exporter, o.budget.Times())
			entry := keys[fp]
			entry.PausedUntil = o.pausedUntil()
			keys[fp] = entry
		}
		e.storeMu.Unlock()
		return true
	})
	if !ran && reserve != nil {
		reserve()
	}
	if written || err != nil { // nothing to write is neither a success nor a failure
		e.noteSave("ledger", e.ledger.Path(), err)
	}
}

// saveData writes the data cache if a unit's state changed since it was
// last written.
func (e *Exporter) saveData() {
	path := e.opts.StoragePath
	if path == "" {
		return
	}
	e.saveMu.Lock()
	defer e.saveMu.Unlock()
	e.storeMu.Lock()
	states := make(map[unitID]*unitState, len(e.states))
	changes := 0
	for id, s := range e.states {
		states[id] = s
		s.mu.Lock()
		changes += s.changes
		s.mu.Unlock()
	}
	e.storeMu.Unlock()
	if changes == e.savedAt && e.saveErr["state"] == "" {
		return
	}
	st := stateFile{Kind: stateKind, Version: stateVersion, Saved: e.clock.Now().UTC(), Units: map[string]json.RawMessage{}}
	for id, s := range states {
		raw, err := s.encode()
		if err != nil {
			e.log.Warn("state of a unit not saved", "unit", id.String(), "err", err)
			continue
		}
		st.Units[id.String()] = raw
	}
	err := atomicfile.Write(path, func(w io.Writer) error { return json.NewEncoder(w).Encode(&st) })
	if err == nil {
		e.savedAt = changes
	}
	e.noteSave("state", path, err)
}

// saveSites records in the ledger the pages of each project's last
// complete month walk of page views, when they changed: what a day of the
// project costs the backfill, which reads them for its estimate.
func (e *Exporter) saveSites() {
	if e.ledger == nil {
		return
	}
	sites := map[string]int{}
	for _, u := range e.current().units {
		if u.id.collector != kind.PageViews {
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
	if len(sites) == 0 || maps.Equal(sites, e.sitesSaved) {
		return
	}
	ctx, cancel := e.lockContext()
	defer cancel()
	err := e.ledger.SetSitesContext(ctx, e.clock.Now(), sites)
	if err == nil {
		e.sitesSaved = sites
	}
	e.noteSave("ledger", e.ledger.Path(), err)
}

// noteSave records a write of file (state or ledger) in the metrics
// (failures counted, last outcome and success time) and logs a change of
// state: the first failure, a different one, and the first
// success after failures. The caller holds saveMu.
func (e *Exporter) noteSave(file, path string, err error) {
	prev := e.saveErr[file]
	if e.saveMetrics != nil {
		e.saveMetrics.observe(file, err, e.clock.Now())
	}
	if err == nil {
		if prev != "" {
			e.log.Info("the "+file+" file is written again", "path", path)
		}
		e.saveErr[file] = ""
		return
	}
	if prev != err.Error() {
		e.log.Warn("writing the "+file+" file failed; the exporter goes on without it, and a restart would load the last one written", "path", path, "err", err)
	}
	e.saveErr[file] = err.Error()
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
	b, err := json.Marshal(unitSnapshot{Health: s.health, Round: s.round, Windows: windows})
	if err != nil {
		return nil, err
	}
	s.encoded, s.encodedAt = b, s.changes
	return b, nil
}
