package engine

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// fetch asks the collector for window r; the unit owns scheduling, health and the budget.
func (u *unit) fetch(ctx context.Context, c *mintlify.Client, ws *windowState, r mintlify.DateRange, now time.Time) (spec.Payload, error) {
	return u.collector.Fetched.Fetch(ctx, spec.Query{Client: c, Project: u.id.project, Range: r, Old: ws.Payload, Now: now, Settings: u.settings})
}

// advance fetches through c, gated by the unit's grant; done says new data landed.
func (u *unit) advance(ctx context.Context, c *mintlify.Client, ws *windowState, w windowSpec, now time.Time) (bool, error) {
	r := rangeFor(ws, w, now)
	pl, err := u.fetch(ctx, c, ws, r, now)
	if pl == nil && refusedFuture(ws, r, err) {
		r = rangeFor(ws, w, now)
		pl, err = u.fetch(ctx, c, ws, r, now)
		// No budget left for the retry: it runs next; a walk keeps what it shows.
		if wp, ok := pl.(spec.Walking); errors.Is(err, mintlify.ErrWalkStopped) && ctx.Err() == nil && (!ok || wp.ShownRange() == nil) {
			return false, nil
		}
	}
	if err == nil {
		u.keep(ws, pl, r)
		ws.DataTime = now
		return true, nil
	}
	stopped := errors.Is(err, mintlify.ErrWalkStopped)
	if pl == nil || (stopped && ctx.Err() != nil) {
		return false, err
	}
	// New data, or a first refresh's that has none yet, is shown as of now: up, and partial.
	if (stopped && ws.DataTime.IsZero()) || u.newData(ws.Payload, pl) {
		ws.Progress = now
	}
	if stopped {
		// The budget ran out mid-fetch: keep what the collector finished and go on from it next time (no failure).
		u.keep(ws, pl, r)
		return false, nil
	}
	// Failed: a walk keeps the pages it read; a refused cursor walk is dropped, so the next refresh starts afresh.
	ws.Payload = pl
	if wp, ok := pl.(spec.Walking); ok {
		ws.Range = wp.ShownRange()
	}
	return false, err
}

func (u *unit) keep(ws *windowState, pl spec.Payload, r mintlify.DateRange) {
	ws.Payload, ws.Range, ws.Hint = pl, &r, u.collector.Fetched.Cost(pl)
	if wp, ok := pl.(spec.Walking); ok {
		ws.Range, ws.Hint = wp.ShownRange(), wp.Pages()
	}
}

// shows: a first refresh the budget paused may have nothing to show yet.
func (u *unit) shows(ws *windowState) bool {
	return ws.Payload != nil && (!ws.DataTime.IsZero() || u.newData(nil, ws.Payload))
}

// newData compares what old and pl show; a walk's rows are read once, so it shows new data when it shows another walk.
func (u *unit) newData(old, pl spec.Payload) bool {
	if w, ok := pl.(spec.Walking); ok {
		o, ok := old.(spec.Walking)
		return w.ShownRange() != nil && (!ok || o.ShownRange() != w.ShownRange())
	}
	if old == nil {
		old = u.collector.Fetched.Empty()
	}
	return !reflect.DeepEqual(u.collector.Fetched.Samples(pl, u.settings), u.collector.Fetched.Samples(old, u.settings))
}
