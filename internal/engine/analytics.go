package engine

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
)

// perWindow is the unit's side of a kind fetched whole (source.Fetched,
// every kind of internal/kind.All not walked page by page): one fetch a window, whose payload the
// kind turns into samples, shown as the window's gauges and as the month's
// counters.
type perWindow struct {
	kind     kind.Kind
	code     source.Fetched
	project  string // label value
	id       string // upstream project id
	settings source.Settings
}

func (p *perWindow) cost(ws *windowState) int { return p.code.Cost(ws.Payload) }

func (p *perWindow) fetch(ctx context.Context, c *mintlify.Client, ws *windowState, r mintlify.DateRange, now time.Time) (source.Payload, error) {
	return p.code.Fetch(ctx, source.Query{Client: c, Project: p.id, Range: r, Old: ws.Payload, Now: now, Settings: p.settings})
}

func (p *perWindow) advance(ctx context.Context, c *mintlify.Client, ws *windowState, w windowSpec, now time.Time) (bool, error) {
	r := rangeFor(ws, w, now)
	pl, err := p.fetch(ctx, c, ws, r, now)
	if refusedFuture(ws, r, err) {
		r = rangeFor(ws, w, now)
		pl, err = p.fetch(ctx, c, ws, r, now)
		if errors.Is(err, mintlify.ErrSweepStopped) && ctx.Err() == nil {
			return false, nil // no budget left for the retry: it runs next
		}
	}
	if err != nil {
		if errors.Is(err, mintlify.ErrSweepStopped) && ctx.Err() == nil && pl != nil {
			// The budget ran out mid-fetch and the kind returned what it
			// finished (whole days, say): kept, and the next try goes on
			// from it. Not a failure; the round resumes when budget frees.
			// It is shown meanwhile; when it holds new data (days the walk
			// finished, not only the last complete count and a cursor), or
			// when no round has completed yet (a first walk, which may
			// show nothing: the feedback backlog's), that data is as of
			// now (shownAt): up, and partial.
			if p.newData(ws.Payload, pl) || ws.DataTime.IsZero() {
				ws.Progress = now
			}
			ws.Payload, ws.Range = pl, &r
			ws.Hint = p.code.Cost(pl)
			return false, nil
		}
		if errors.Is(err, mintlify.ErrCursorRefused) && pl != nil {
			ws.Payload = pl // the same data without the refused walk: the next round starts afresh
		}
		return false, err
	}
	ws.Payload, ws.DataTime, ws.Range = pl, now, &r
	ws.Hint = p.code.Cost(pl)
	return true, nil
}

func (p *perWindow) shows(ws *windowState) bool {
	return ws.Payload != nil && (!ws.DataTime.IsZero() || p.newData(nil, ws.Payload))
}

// newData reports whether payload pl shows other samples than old (an
// empty payload when nil) does.
func (p *perWindow) newData(old, pl source.Payload) bool {
	if old == nil {
		old = p.code.Empty()
	}
	return !reflect.DeepEqual(p.code.Samples(pl, p.settings), p.code.Samples(old, p.settings))
}
