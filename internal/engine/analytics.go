package engine

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// perWindow is the unit's side of a collector fetched whole (spec.Fetched): one fetch a window.
type perWindow struct {
	collector spec.Collector
	code      spec.Fetched
	project   string // label value
	id        string // upstream project id
	settings  spec.Settings
}

func (p *perWindow) cost(ws *windowState) int { return p.code.Cost(ws.Payload) }

func (p *perWindow) fetch(ctx context.Context, c *mintlify.Client, ws *windowState, r mintlify.DateRange, now time.Time) (spec.Payload, error) {
	return p.code.Fetch(ctx, spec.Query{Client: c, Project: p.id, Range: r, Old: ws.Payload, Now: now, Settings: p.settings})
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
			// The budget ran out mid-fetch: keep what the collector finished and go on from it next time (no failure).
			// New data, or a first round's that has none yet, is shown as of now: up, and partial.
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

func (p *perWindow) newData(old, pl spec.Payload) bool {
	if old == nil {
		old = p.code.Empty()
	}
	return !reflect.DeepEqual(p.code.Samples(pl, p.settings), p.code.Samples(old, p.settings))
}
