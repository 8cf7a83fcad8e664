package engine

import (
	"context"
	"time"
)

// closeLockWait: the last save may wait out a backfill's brief hold, never a long one, so shutdown ends in time.
const closeLockWait = 2 * time.Second

// lockContext: the exporter's context while it runs (Close cancels it), then closeLockWait for the last save.
func (e *Engine) lockContext() (context.Context, context.CancelFunc) {
	if e.ctx != nil && e.ctx.Err() == nil {
		return e.ctx, func() {}
	}
	return context.WithTimeout(context.Background(), closeLockWait)
}
