package engine

import (
	"context"
	"time"
)

// closeLockWait bounds the wait for the ledger's lock once Close began:
// the last save may wait a moment for a backfill's, never for a process
// that holds the lock for long, so that shutdown ends in time.
const closeLockWait = 2 * time.Second

// lockContext is what a wait for the ledger's lock ends with: the
// exporter's context while it runs (Close cancels it), then a short bound
// of its own, for the last save. The ledger bounds every wait as well
// (statefiles.MaxLockWait).
func (e *Engine) lockContext() (context.Context, context.CancelFunc) {
	if e.ctx != nil && e.ctx.Err() == nil {
		return e.ctx, func() {}
	}
	return context.WithTimeout(context.Background(), closeLockWait)
}
