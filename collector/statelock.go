package collector

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/ledger"
)

// closeLockWait bounds the wait for the ledger's lock once Close began:
// the last save may wait a moment for a backfill's, never for a process
// that holds the lock for long, so that shutdown ends in time.
const closeLockWait = 2 * time.Second

// lockContext is what a wait for the ledger's lock ends with: the
// exporter's context while it runs (Close cancels it), then a short bound
// of its own, for the last save. The ledger bounds every wait as well
// (ledger.MaxLockWait).
func (e *Exporter) lockContext() (context.Context, context.CancelFunc) {
	if e.ctx != nil && e.ctx.Err() == nil {
		return e.ctx, func() {}
	}
	return context.WithTimeout(context.Background(), closeLockWait)
}

// ledgerReplaced logs a bad ledger moved aside and replaced (see
// internal/ledger): once, when it happens.
func (e *Exporter) ledgerReplaced(r ledger.Replaced) {
	e.log.Warn("the ledger could not be read; it was moved aside and a fresh one written. What it recorded is unknown, so every key's budget counts as spent for an hour (no analytics request until then)",
		"path", r.Path, "moved_to", r.Aside, "until", r.Until, "err", r.Err)
}
