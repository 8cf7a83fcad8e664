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
	if pl == nil && refusedFuture(ws, r, err) {
		r = rangeFor(ws, w, now)
		pl, err = p.fetch(ctx, c, ws, r, now)
		// No budget left for the retry: it runs next; a walk keeps what it shows.
		if wp, ok := pl.(spec.Walking); errors.Is(err, mintlify.ErrSweepStopped) && ctx.Err() == nil && (!ok || wp.ShownRange() == nil) {
			return false, nil
		}
	}
	if err == nil {
		p.keep(ws, pl, r)
		ws.DataTime = now
		return true, nil
	}
	stopped := errors.Is(err, mintlify.ErrSweepStopped)
	if pl == nil || (stopped && ctx.Err() != nil) {
		return false, err
	}
	// New data, or a first round's that has none yet, is shown as of now: up, and partial.
	if (stopped && ws.DataTime.IsZero()) || p.newData(ws.Payload, pl) {
		ws.Progress = now
	}
	if stopped {
		// The budget ran out mid-fetch: keep what the collector finished and go on from it next time (no failure).
		p.keep(ws, pl, r)
		return false, nil
	}
	// Failed: a walk keeps the pages it read; a refused cursor walk is dropped, so the next round starts afresh.
	ws.Payload = pl
	if wp, ok := pl.(spec.Walking); ok {
		ws.Range = wp.ShownRange()
	}
	return false, err
}

func (p *perWindow) keep(ws *windowState, pl spec.Payload, r mintlify.DateRange) {
	ws.Payload, ws.Range, ws.Hint = pl, &r, p.code.Cost(pl)
	if wp, ok := pl.(spec.Walking); ok {
		ws.Range, ws.Hint = wp.ShownRange(), wp.Pages()
	}
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
