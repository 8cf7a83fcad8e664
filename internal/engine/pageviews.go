package engine

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// pageViews walks one window each; with rows mintlify.Visitors it is the visitors collector.
type pageViews struct {
	kind    mintlify.RowsKind
	project string // label value
	id      string // upstream project id
	opts    walkSettings
	filter  PathFilter
}

type walkSettings struct {
	pageSize, concurrency, maxPages int
}

// PathFilter is a project's include_paths/exclude_paths (Match, nil for all) and max_paths (MaxPaths, 0 for all).
type PathFilter struct {
	Match    func(path string) bool
	MaxPaths int
}

// Allowed also refuses what cannot be a label value (mintlify.PathLabelOK); such rows count as dropped.
func (f PathFilter) Allowed(path string) bool {
	if !mintlify.PathLabelOK(path) {
		return false
	}
	return f.Match == nil || f.Match(path)
}

// Exported applies the filter anew: a reload may have changed it since the walk kept its rows.
func (f PathFilter) Exported(data *mintlify.Walk) []mintlify.PageViewRow {
	keep := make([]mintlify.PageViewRow, 0, len(data.Rows))
	for _, r := range data.Rows {
		if f.Allowed(r.Path) {
			keep = append(keep, r)
		}
	}
	return mintlify.MostViewed(keep, f.MaxPaths)
}

type windowSpec struct {
	label    string
	duration time.Duration
	month    bool
}

// key: a window whose duration changes under the same label is new data.
func (w windowSpec) key() string {
	if w.month {
		return "month"
	}
	return w.label + "=" + w.duration.String()
}

func (p *pageViews) cost(ws *windowState) int {
	if ws.Hint == 0 {
		// Size unknown: reserve a few pages so a first walk goes on in one run; what it does not use goes back.
		return firstWalkReserve
	}
	if ws.Walk != nil {
		return ws.Walk.Remaining(ws.Hint)
	}
	return max(ws.Hint, 1)
}

const firstWalkReserve = 8

func (p *pageViews) advance(ctx context.Context, c *mintlify.Client, ws *windowState, w windowSpec, now time.Time) (bool, error) {
	var walk *mintlify.Walk
	if ws.Walk != nil {
		// A walk keeps its range across midnight: a month walk begun on a month's last day ends with that month.
		walk = ws.Walk.Clone()
	} else {
		walk = mintlify.NewWalk(p.kind, rangeFor(ws, w, now), p.opts.pageSize)
	}
	before := walk.Requests
	opts := mintlify.WalkOptions{
		Concurrency:   p.opts.concurrency,
		MaxPages:      p.opts.maxPages,
		ExpectedPages: ws.Hint,
		Keep:          p.filter.Allowed,
		MaxRows:       p.filter.MaxPaths,
	}
	if walk.Next == 0 && walk.Range.Days && ws.Data != nil && !ws.Data.Range.Days {
		// Day dates were refused last time: probe with one page, so a refusal costs one request.
		opts.ExpectedPages = 1
	}
	err := c.Continue(ctx, p.id, walk, opts)
	if walk.Requests == 0 && refusedFuture(ws, walk.Range, err) {
		// No page of the walk was read: start it again with dateTo = now.
		walk = mintlify.NewWalk(p.kind, rangeFor(ws, w, now), p.opts.pageSize)
		err = c.Continue(ctx, p.id, walk, opts)
	}
	if walk.Requests > before {
		ws.Progress = now
	}
	if walk.Done() {
		ws.Data, ws.Walk, ws.Hint, ws.DataTime = walk, nil, walk.Pages(), now
		return true, err
	}
	ws.Walk = walk
	return false, err
}

func (p *pageViews) shows(ws *windowState) bool { return shown(ws) != nil }

func shown(ws *windowState) *mintlify.Walk {
	walk := ws.Data
	if walk == nil {
		walk = ws.Walk
	}
	if walk == nil || walk.Requests == 0 {
		return nil
	}
	return walk
}
