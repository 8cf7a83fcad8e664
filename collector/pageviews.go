package collector

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// traffic label values. There is deliberately no "total": sum() does that.
const (
	trafficHuman = "human"
	trafficAI    = "ai"
	trafficOther = "other"
)

// pageViews is the page-view collector of one project: one walk per
// window. With kind Visitors it is the visitors collector, which walks the
// same way and exports the same shape under its own metric names.
type pageViews struct {
	kind    mintlify.RowsKind
	project string // label value
	id      string // upstream project id
	client  *mintlify.Client
	opts    walkSettings
	filter  pathFilter
}

type walkSettings struct {
	pageSize, concurrency, maxPages int
}

// pathFilter is which paths a project exports: the config's
// include_paths/exclude_paths (match, nil for all), and at most maxPaths.
type pathFilter struct {
	match    func(path string) bool
	maxPaths int
}

// allowed also refuses paths that cannot be a label value
// (mintlify.PathLabelOK: empty, too long, or not escaped); such rows are
// counted as dropped.
func (f pathFilter) allowed(path string) bool {
	if !mintlify.PathLabelOK(path) {
		return false
	}
	return f.match == nil || f.match(path)
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

func (p *pageViews) name() string {
	if p.kind == mintlify.Visitors {
		return kind.Visitors
	}
	return kind.PageViews
}

// descs returns the page and site descriptors of the collector's kind.
func (p *pageViews) descs() (page, site *prometheus.Desc) {
	if p.kind == mintlify.Visitors {
		return descPageVisitors, descSiteVisitors
	}
	return descPageViews, descSitePageViews
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
func (p *pageViews) advance(ctx context.Context, ws *windowState, w windowSpec, now time.Time) (bool, error) {
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
		Keep:          p.filter.allowed,
		MaxRows:       p.filter.maxPaths,
	}
	if walk.Next == 0 && walk.Range.Days && ws.Data != nil && !ws.Data.Range.Days {
		// The upstream refused day dates last time: probe with the first
		// page alone, so a refusal costs one request, not one per page
		// in flight.
		opts.ExpectedPages = 1
	}
	err := p.client.Continue(ctx, p.id, walk, opts)
	if walk.Requests == 0 && refusedFuture(ws, walk.Range, err) {
		// No page of the walk was read: start it again with dateTo = now.
		walk = mintlify.NewWalk(p.kind, rangeFor(ws, w, now), p.opts.pageSize)
		err = p.client.Continue(ctx, p.id, walk, opts)
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

// series builds the window's page and site series from its last complete
// walk or, before the first one completes, from the walk in progress.
func (p *pageViews) series(ws *windowState, w windowSpec) []prometheus.Metric {
	walk := shown(ws)
	if walk == nil {
		return nil
	}
	descPage, descSite := p.descs()
	project := labelPair("project", p.project)
	human := labelPair("traffic", trafficHuman)
	ai := labelPair("traffic", trafficAI)
	// Label pairs sorted by name: path, project, traffic, window. The
	// month window's counters have no window label, and the start of the
	// month as their created timestamp.
	n := 4
	window := labelPair("window", w.label)
	var created *timestamppb.Timestamp
	if w.month {
		n, window = 3, nil
		created = timestamppb.New(walk.Range.From)
		descPage, descSite = descPageViewsTotal, descSitePageViewsTotal
	}
	site := func(v float64, traffic *dto.LabelPair) *sample {
		pairs := []*dto.LabelPair{project, traffic}
		if window != nil {
			pairs = append(pairs, window)
		}
		s := newSample(descSite, v, pairs...)
		s.created = created
		return s
	}

	keep := p.exported(walk)
	samples := make([]prometheus.Metric, 0, 2*len(keep)+3)
	backing := make([]sample, 2*len(keep))
	labels := make([]*dto.LabelPair, 2*n*len(keep))
	for i, r := range keep {
		path := labelPair("path", r.Path)
		lh := labels[2*n*i : 2*n*i+n : 2*n*i+n]
		lh[0], lh[1], lh[2] = path, project, human
		la := labels[2*n*i+n : 2*n*(i+1) : 2*n*(i+1)]
		la[0], la[1], la[2] = path, project, ai
		if window != nil {
			lh[3], la[3] = window, window
		}
		// ai before human: the registry sorts each family by label values
		// on every scrape, and input already in that order sorts fastest.
		backing[2*i] = sample{desc: descPage, labels: la, value: r.AI, created: created}
		backing[2*i+1] = sample{desc: descPage, labels: lh, value: r.Human, created: created}
		samples = append(samples, &backing[2*i], &backing[2*i+1])
	}
	t := walk.Totals
	samples = append(samples, site(t.Human, human), site(t.AI, ai))
	switch other := t.Total - t.Human - t.AI; {
	case p.kind == mintlify.Visitors:
		// The visitors total counts a visitor once even if it came as both
		// human and AI: it is no sum, so it gets its own name.
		samples = append(samples, newSample(descSiteUniqueVisitors, t.Total, project, window))
	case other > 0:
		samples = append(samples, site(other, labelPair("traffic", trafficOther)))
	}
	return samples
}

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

// exported applies the current filter and max_paths to a walk's rows (a
// reload may have changed them since the walk kept its rows).
func (p *pageViews) exported(data *mintlify.Walk) []mintlify.PageViewRow {
	keep := make([]mintlify.PageViewRow, 0, len(data.Rows))
	for _, r := range data.Rows {
		if p.filter.allowed(r.Path) {
			keep = append(keep, r)
		}
	}
	return mintlify.MostViewed(keep, p.filter.maxPaths)
}

// bookkeeping are the walk's figures (page views only). They are shown
// even when the data is older than max_age, so a stuck walk can be seen.
func (p *pageViews) bookkeeping(ws *windowState, w windowSpec) []prometheus.Metric {
	data := shown(ws)
	if p.kind == mintlify.Visitors || data == nil {
		return nil
	}
	exported := len(p.exported(data))
	truncated := data.Truncated || ws.Data == nil
	remaining := 0
	if ws.Walk != nil {
		remaining = ws.Walk.Remaining(ws.Hint)
	}
	lv := []string{p.project, w.label}
	var fallback []prometheus.Metric
	if w.month {
		fallback = append(fallback, prometheus.MustNewConstMetric(descDateFallback, prometheus.GaugeValue, boolFloat(!data.Range.Days), p.name(), p.project))
	}
	return append(fallback,
		prometheus.MustNewConstMetric(descPathsExported, prometheus.GaugeValue, float64(exported), lv...),
		prometheus.MustNewConstMetric(descPathsDropped, prometheus.GaugeValue, float64(data.Dropped+data.Merged+len(data.Rows)-exported), lv...),
		prometheus.MustNewConstMetric(descSweepTruncated, prometheus.GaugeValue, boolFloat(truncated), lv...),
		prometheus.MustNewConstMetric(descSweepDuplicates, prometheus.GaugeValue, float64(data.Duplicates), lv...),
		prometheus.MustNewConstMetric(descSweepRequests, prometheus.GaugeValue, float64(data.Requests), lv...),
		prometheus.MustNewConstMetric(descWalkRepeated, prometheus.GaugeValue, boolFloat(data.Repeated), lv...),
		prometheus.MustNewConstMetric(descWalkPagesLeft, prometheus.GaugeValue, float64(remaining), lv...),
	)
}
