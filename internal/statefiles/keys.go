package statefiles

import (
	"context"
	"time"
)

// Key is what the ledger holds of a key, as the exporter sees it.
type Key struct {
	Own         []time.Time // the exporter's requests of the last hour
	Foreign     []time.Time // the other writers' (the backfill's)
	PausedUntil time.Time
}

// ReadLedger returns the ledger's keys, back-offs capped at maxPause from now; clamped counts future times.
func (f *Files) ReadLedger(now time.Time, maxPause time.Duration) (keys map[string]Key, clamped int) {
	lk, clamped, err := f.ledger.Read(now)
	f.logReplaced()
	if err != nil {
		f.log.Warn("ignoring the ledger, which could not be read nor replaced: the budget counts only this process's requests until it can be, and saves of the ledger fail meanwhile", "path", f.ledger.Path(), "err", err)
		lk = nil
	}
	clamped += clampLedger(lk, now, maxPause)
	keys = make(map[string]Key, len(lk))
	for fp, e := range lk {
		keys[fp] = Key{Own: e.Writers[Exporter], Foreign: lk.Foreign(fp, Exporter), PausedUntil: e.PausedUntil}
	}
	return keys, clamped
}

func clampLedger(keys Keys, now time.Time, maxPause time.Duration) int {
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

// BeginLedger locks and reads the ledger until CommitLedger or Abort; a failure counts as a failed LedgerFile write.
func (f *Files) BeginLedger(ctx context.Context, now time.Time) (*Txn, error) {
	t, err := f.ledger.Begin(ctx, now)
	f.logReplaced()
	if err != nil {
		f.note(LedgerFile, f.ledger.Path(), err)
		return nil, err
	}
	return t, nil
}

// CommitLedger writes the ledger, lets its lock go and logs a change of outcome.
func (f *Files) CommitLedger(t *Txn) error {
	err := t.Commit()
	f.note(LedgerFile, f.ledger.Path(), err)
	return err
}

func (f *Files) logReplaced() {
	for _, r := range f.ledger.TakeReplaced() {
		f.log.Warn("the ledger could not be read; it was moved aside and a fresh one written. What it recorded is unknown, so every key's budget counts as spent for an hour (no analytics request until then)",
			"path", r.Path, "moved_to", r.Aside, "until", r.Until, "err", r.Err)
	}
}
