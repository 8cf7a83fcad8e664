package statefiles

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/ledger"
)

// Fingerprint is how the ledger names a key: never the key itself.
func Fingerprint(key string) string { return ledger.Fingerprint(key) }

// Key is what the ledger holds of a key, as the exporter sees it.
type Key struct {
	Own         []time.Time // the exporter's requests of the last hour
	Foreign     []time.Time // the other writers' (the backfill's)
	PausedUntil time.Time
}

// Own is what the exporter records of a key: its requests and back-off.
type Own struct {
	Requests    []time.Time
	PausedUntil time.Time
}

// V1Key is what a version 1 data cache kept of a key, before the ledger
// had a file of its own.
type V1Key struct {
	Requests    []time.Time            `json:"requests"`
	PausedUntil time.Time              `json:"paused_until"`
	Others      map[string][]time.Time `json:"others,omitempty"`
}

// ReadLedger returns the keys the ledger holds. When it holds none and v1
// (a version 1 data cache's) does, those move to the ledger at the next
// update. Back-offs that would last past maxPause from now end then;
// clamped counts them with the ledger's times in the future.
func (f *Files) ReadLedger(now time.Time, v1 map[string]V1Key, maxPause time.Duration) (keys map[string]Key, clamped int) {
	lk, clamped, err := f.ledger.Read(now)
	if err != nil {
		f.log.Warn("ignoring the ledger, which could not be read nor replaced: the budget counts only this process's requests until it can be, and saves of the ledger fail meanwhile", "path", f.ledger.Path(), "err", err)
		lk = nil
	}
	if lk == nil && len(v1) > 0 {
		lk = migrateLedger(v1)
		f.log.Info("the ledger moved out of the state file of an earlier version", "path", f.ledger.Path(), "keys", len(lk))
	}
	clamped += clampLedger(lk, now, maxPause)
	keys = make(map[string]Key, len(lk))
	for fp, e := range lk {
		keys[fp] = Key{Own: e.Writers[ledger.Exporter], Foreign: lk.Foreign(fp, ledger.Exporter), PausedUntil: e.PausedUntil}
	}
	return keys, clamped
}

// migrateLedger is a version 1 data cache's ledger, as the ledger holds it.
func migrateLedger(orgs map[string]V1Key) ledger.Keys {
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

// clampLedger ends the back-offs that would last past maxPause from now.
// It returns how many it changed.
func clampLedger(keys ledger.Keys, now time.Time, maxPause time.Duration) int {
	n := 0
	for fp, e := range keys {
		if limit := now.Add(maxPause); e.PausedUntil.After(limit) {
			e.PausedUntil = limit
			keys[fp] = e
			n++
		}
	}
	return n
}

// UpdateLedger updates the ledger, under its lock: it gives seen the
// requests other processes recorded, by key fingerprint, runs reserve
// (when not nil; a reservation then sees every request made with the
// key), and records own's requests and back-offs, unless reserve reports
// false. A ledger that cannot be used does not stop reserve; its failure
// is reported and logged.
func (f *Files) UpdateLedger(ctx context.Context, now time.Time, seen func(foreign func(fp string) []time.Time), reserve func() bool, own func() map[string]Own) {
	ran := false
	written, err := f.ledger.UpdateContext(ctx, now, func(keys ledger.Keys) bool {
		seen(func(fp string) []time.Time { return keys.Foreign(fp, ledger.Exporter) })
		ran = true
		if reserve != nil && !reserve() {
			return false
		}
		for fp, o := range own() {
			keys.Set(fp, ledger.Exporter, o.Requests)
			entry := keys[fp]
			entry.PausedUntil = o.PausedUntil
			keys[fp] = entry
		}
		return true
	})
	if !ran && reserve != nil {
		reserve()
	}
	if written || err != nil { // nothing to write is neither a success nor a failure
		f.note(Ledger, f.ledger.Path(), err)
	}
}

// ledgerReplaced logs a bad ledger moved aside and replaced (see
// internal/ledger): once, when it happens.
func (f *Files) ledgerReplaced(r ledger.Replaced) {
	f.log.Warn("the ledger could not be read; it was moved aside and a fresh one written. What it recorded is unknown, so every key's budget counts as spent for an hour (no analytics request until then)",
		"path", r.Path, "moved_to", r.Aside, "until", r.Until, "err", r.Err)
}
