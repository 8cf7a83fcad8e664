package engine

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// pageViews is the page-view collector of one project: one walk per
// window. With kind Visitors it is the visitors collector, which walks the
// same way and exports the same shape under its own metric names.
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

// PathFilter is which paths a project exports: the configuration's
// include_paths/exclude_paths (Match, nil for all) and max_paths
// (MaxPaths, 0 for all).
type PathFilter struct {
	Match    func(path string) bool
	MaxPaths int
}

// Allowed also refuses paths that cannot be a label value
// (mintlify.PathLabelOK: empty, too long, or not escaped); such rows are
// counted as dropped.
func (f PathFilter) Allowed(path string) bool {
	if !mintlify.PathLabelOK(path) {
		return false
	}
	return f.Match == nil || f.Match(path)
}

// Exported applies the filter and max_paths to a walk's rows (a reload
// may have changed them since the walk kept its rows).
func (f PathFilter) Exported(data *mintlify.Walk) []mintlify.PageViewRow {
	keep := make([]mintlify.PageViewRow, 0, len(data.Rows))
	for _, r := range data.Rows {
		if f.Allowed(r.Path) {
			keep = append(keep, r)
		}
	}
	return mintlify.MostViewed(keep, f.MaxPaths)
}

// windowSpec is one window of the config, or the month window of the
// counters (month set, no duration).
type windowSpec struct {
	label    string
	duration time.Duration
	month    bool
}

// key identifies the window's data: a window whose duration changes under
// the same label is new data.
func (w windowSpec) key() string {
	if w.month {
		return "month"
	}
	return w.label + "=" + w.duration.String()
}

// cost is the pages the window's walk still needs: the last walk's count
// less what the walk in progress has read, at least one.
func (p *pageViews) cost(ws *windowState) int {
	if ws.Hint == 0 {
		// No walk has told the size yet: the walk goes one page at a
		// time, and a reservation of a few pages lets it go on in one run
		// instead of one run a page; what it does not use goes back.
		return firstWalkReserve
	}
	if ws.Walk != nil {
		return ws.Walk.Remaining(ws.Hint)
	}
	return max(ws.Hint, 1)
}

// firstWalkReserve is what a window whose size is not known yet reserves.
const firstWalkReserve = 8

// advance continues the window's walk, or starts one, with the requests
// the gate lets through. A walk that is not done keeps its pages for the
// next run.
func (p *pageViews) advance(ctx context.Context, c *mintlify.Client, ws *windowState, w windowSpec, now time.Time) (bool, error) {
	var walk *mintlify.Walk
	if ws.Walk != nil {
		// A walk keeps its range, also across midnight or the end of the
		// month: the month walk that began on the last day of a month
		// ends with that whole month.
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
		// The upstream refused day dates last time: probe with the first
		// page alone, so a refusal costs one request, not one per page
		// in flight.
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

// shown is the walk whose rows are exported: the last complete one, or
// the one in progress until one completes; nil if none read a page.
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
