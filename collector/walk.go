package collector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// walked is a collector walked page by page (mintlify.Walk), resumed across budget grants: page views and visitors.
type walked struct {
	rows       mintlify.RowsEndpoint // the endpoint walked
	page, site string
	// unique is the family of de-duplicated site visitors, which do not add up; "" for page views.
	unique string
}

// WalkPayload is the last complete walk, the walk in progress (its pages kept until it completes) and the
// pages the last complete walk had.
type WalkPayload struct {
	Data *mintlify.Walk `json:"data,omitempty"`
	Walk *mintlify.Walk `json:"walk,omitempty"`
	Hint int            `json:"hint"`
}

// ShownRange is the range of Shown, nil when it is none.
func (p *WalkPayload) ShownRange() *mintlify.DateRange {
	if w := p.Shown(); w != nil {
		return &w.Range
	}
	return nil
}

// Shown is the walk exported: the last complete, else the one in progress once it read a page.
func (p *WalkPayload) Shown() *mintlify.Walk {
	walk := p.Data
	if walk == nil {
		walk = p.Walk
	}
	if walk == nil || walk.Requests == 0 {
		return nil
	}
	return walk
}

func (p *WalkPayload) Pages() int { return p.Hint }

// Remaining is what the walk in progress still expects to read.
func (p *WalkPayload) Remaining() int {
	if p.Walk == nil {
		return 0
	}
	return p.Walk.Remaining(p.Hint)
}

func (walked) Empty() Payload { return &WalkPayload{} }

func (walked) Cost(pl Payload) int {
	p, _ := pl.(*WalkPayload)
	switch {
	case p == nil || p.Hint == 0:
		// Size unknown: reserve a few pages so a first walk goes on in one run; what it does not use goes back.
		return firstWalkReserve
	case p.Walk != nil:
		return p.Walk.Remaining(p.Hint)
	}
	return max(p.Hint, 1)
}

const firstWalkReserve = 8

// Fetch goes on with q.Old's walk, else walks q.Range; day dates refused before any page read (a 400) return
// no payload, so the engine asks again in RFC 3339.
func (k walked) Fetch(ctx context.Context, q Query) (Payload, error) {
	old, _ := q.Old.(*WalkPayload)
	if old == nil {
		old = &WalkPayload{}
	}
	walk := mintlify.NewWalk(k.rows, q.Range, q.Settings.PageSize)
	if w := old.Walk; w != nil && (w.Requests > 0 || !w.Range.Days || q.Range.Days) {
		// A walk keeps its range across midnight: a month walk begun on a month's last day ends with that month;
		// one of refused day dates that read nothing starts again in RFC 3339.
		walk = w.Clone()
	}
	s := q.Settings
	opts := mintlify.WalkOptions{Concurrency: s.Concurrency, MaxPages: s.MaxPages, ExpectedPages: old.Hint, Keep: s.Keep, MaxRows: s.MaxPaths}
	if walk.Next == 0 && walk.Range.Days && old.Data != nil && !old.Data.Range.Days {
		// Day dates were refused last time: probe with one page, so a refusal costs one request.
		opts.ExpectedPages = 1
	}
	err := q.Client.Continue(ctx, q.Project, walk, opts)
	switch {
	case walk.Done():
		return &WalkPayload{Data: walk, Hint: walk.Pages()}, err
	case walk.Requests == 0 && walk.Range.Days && mintlify.IsBadRequest(err):
		return nil, err
	case err == nil:
		err = mintlify.ErrWalkStopped
	}
	if old.Walk != nil && walk.Requests == old.Walk.Requests {
		walk = old.Walk // nothing read: the same walk, so no new data to show
	}
	return &WalkPayload{Data: old.Data, Walk: walk, Hint: old.Hint}, err
}

// Samples re-applies the path filter: a reload may have changed it since the walk kept its rows.
func (k walked) Samples(pl Payload, s Settings) []Sample {
	walk := pl.(*WalkPayload).Shown()
	if walk == nil {
		return nil
	}
	keep := Exported(walk, s)
	out := make([]Sample, 0, 2*len(keep)+3)
	labels := make([]Label, 0, 4*len(keep))
	k.pathSamples(keep, func(path, traffic string, v float64) {
		labels = append(labels, Label{Name: "path", Value: path}, Label{Name: "traffic", Value: traffic})
		out = append(out, Sample{Family: k.page, Labels: labels[len(labels)-2:], Value: v})
	})
	return append(out, k.siteSamples(walk.Totals)...)
}

// Exported is the rows of walk that s keeps (s.Keep also refuses what cannot be a label value); walk's own
// rows, not a copy, when it keeps them all: they are unique and sorted by path already (mintlify.MostViewed).
func Exported(walk *mintlify.Walk, s Settings) []mintlify.PageViewRow {
	allowed := s.Keep
	if allowed == nil {
		allowed = mintlify.PathLabelOK
	}
	rows := walk.Rows
	i := slices.IndexFunc(rows, func(r mintlify.PageViewRow) bool { return !allowed(r.Path) })
	if i < 0 && (s.MaxPaths == 0 || len(rows) <= s.MaxPaths) {
		return rows
	}
	if i < 0 {
		i = len(rows)
	}
	keep := append(make([]mintlify.PageViewRow, 0, len(rows)), rows[:i]...)
	for _, r := range rows[min(i+1, len(rows)):] {
		if allowed(r.Path) {
			keep = append(keep, r)
		}
	}
	return mintlify.MostViewed(keep, s.MaxPaths)
}

// pathSamples emits each row's ai then human sample: the registry sorts by label values, and sorted input sorts fastest.
func (k walked) pathSamples(rows []mintlify.PageViewRow, emit func(path, traffic string, value float64)) {
	for _, r := range rows {
		emit(r.Path, spec.TrafficAI, r.AI)
		emit(r.Path, spec.TrafficHuman, r.Human)
	}
}

// siteSamples: human and ai, then other (page views) or the de-duplicated total of unique (visitors).
func (k walked) siteSamples(t mintlify.Counts) []Sample {
	out := []Sample{
		{Family: k.site, Labels: []Label{{Name: "traffic", Value: spec.TrafficHuman}}, Value: t.Human},
		{Family: k.site, Labels: []Label{{Name: "traffic", Value: spec.TrafficAI}}, Value: t.AI},
	}
	switch other := t.Total - t.Human - t.AI; {
	case k.unique != "":
		out = append(out, Sample{Family: k.unique, Value: t.Total})
	case other > 0:
		out = append(out, Sample{Family: k.site, Labels: []Label{{Name: "traffic", Value: spec.TrafficOther}}, Value: other})
	}
	return out
}

// DaySamples are the page views of one day's walk, as the backfill writes them: its site, and its paths if paths.
func DaySamples(walk *mintlify.Walk, paths bool) []Sample {
	k := pageViewsRow.Fetched.(pageViewsWalk).walked
	out := k.siteSamples(walk.Totals)
	if paths {
		k.pathSamples(walk.Rows, func(path, traffic string, v float64) {
			out = append(out, Sample{Family: k.page, Labels: []Label{{Name: "path", Value: path}, {Name: "traffic", Value: traffic}}, Value: v})
		})
	}
	return out
}

// maxStoredPages: no walk that fits the data cache (MaxDataBytes) reads a million pages.
const maxStoredPages = 1 << 20

// Check: rows whose path is no label value are no error: older versions kept them, and the export drops them.
func (k walked) Check(pl Payload, _ time.Time) error {
	p := pl.(*WalkPayload)
	if p.Hint < 0 || p.Hint > maxStoredPages {
		return fmt.Errorf("hint %d out of range", p.Hint)
	}
	if err := k.check(p.Data, true); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if err := k.check(p.Walk, false); err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	return nil
}

func (k walked) check(w *mintlify.Walk, data bool) error {
	switch {
	case w == nil:
		return nil
	case w.Endpoint != k.rows:
		return fmt.Errorf("a walk of %q, not %q", mintlify.EscapeText(string(w.Endpoint)), k.rows)
	case w.PageSize < 1 || w.PageSize > mintlify.MaxPageSize:
		return fmt.Errorf("page size %d out of range", w.PageSize)
	case w.Next < 0 || w.Next > maxStoredPages || w.Last < -1 || w.Last > w.Next:
		return fmt.Errorf("pages next %d, last %d out of range", w.Next, w.Last)
	case w.Requests < 0 || w.Requests > maxStoredPages || w.Duplicates < 0 || w.Dropped < 0:
		return fmt.Errorf("counts of requests %d, duplicates %d, dropped %d out of range", w.Requests, w.Duplicates, w.Dropped)
	case len(w.Rows) > w.Requests*w.PageSize || len(w.Seen) > w.Requests*w.PageSize:
		return fmt.Errorf("%d rows, %d seen: more than %d requests of %d hold", len(w.Rows), len(w.Seen), w.Requests, w.PageSize)
	case w.Range.From.IsZero() || w.Range.To.Before(w.Range.From):
		return fmt.Errorf("range %s to %s is not a range", w.Range.From, w.Range.To)
	}
	if err := checkWalkCounts(w.Totals, "totals"); err != nil {
		return err
	}
	return checkWalkRows(w, data)
}

// checkWalkRows: a complete walk (data) holds each path once.
func checkWalkRows(w *mintlify.Walk, data bool) error {
	var paths map[string]bool
	if data {
		paths = make(map[string]bool, len(w.Rows))
	}
	for _, r := range w.Rows {
		if err := checkWalkCounts(r.Counts, "row"); err != nil {
			return fmt.Errorf("path %q: %w", mintlify.EscapeText(r.Path), err)
		}
		if paths != nil {
			if paths[r.Path] {
				return fmt.Errorf("path %q twice", mintlify.EscapeText(r.Path))
			}
			paths[r.Path] = true
		}
	}
	return nil
}

func checkWalkCounts(c mintlify.Counts, where string) error {
	return errors.Join(mintlify.CheckCount(c.Human, where+".human"), mintlify.CheckCount(c.AI, where+".ai"),
		mintlify.CheckCount(c.Total, where+".total"))
}
