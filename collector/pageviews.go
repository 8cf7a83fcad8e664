package collector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// maxPathBytes bounds the path label. A longer "path" is not a page anyone
// reads on a dashboard, and a 10 kB label value is a cost to every scrape
// and to Prometheus' index; such rows are counted as dropped.
const maxPathBytes = 1024

// traffic label values. There is deliberately no "total": sum() does that.
const (
	trafficHuman = "human"
	trafficAI    = "ai"
	trafficOther = "other"
)

// pageViews is the page-view collector of one project: one sweep per
// window. With kind Visitors it is the visitors collector, which walks the
// same way and exports the same shape under its own metric names.
type pageViews struct {
	kind    mintlify.RowsKind
	project string // label value
	id      string // upstream project id
	client  *mintlify.Client
	opts    sweepSettings

	mu      sync.Mutex
	windows []*windowCache // in config order
	filter  pathFilter
}

type sweepSettings struct {
	pageSize, concurrency, maxPages int
	// budgetLimit is the key's hourly allowance. A sweep longer than the
	// allowance could never finish (the budget would stop it every time),
	// so each window's walk is capped at its part of the allowance and
	// reported as truncated instead.
	budgetLimit func() int
}

// pageCap is how many pages one window's walk may take.
func (s sweepSettings) pageCap(windows int) int {
	c := s.maxPages
	if s.budgetLimit != nil {
		c = min(c, max(s.budgetLimit()/max(windows, 1), 1))
	}
	return c
}

type pathFilter struct {
	include, exclude []config.Regexp
	maxPaths         int
}

func (f pathFilter) allowed(path string) bool {
	if len(f.include) > 0 && !slices.ContainsFunc(f.include, func(r config.Regexp) bool { return r.MatchString(path) }) {
		return false
	}
	return !slices.ContainsFunc(f.exclude, func(r config.Regexp) bool { return r.MatchString(path) })
}

// windowCache is what the last good sweep of one window gave, and the
// metrics built from it.
type windowCache struct {
	label    string
	duration time.Duration

	// from the last sweep
	ok         bool
	rows       []mintlify.PageViewRow
	totals     mintlify.Counts
	pages      int // pages the upstream had; the next sweep's hint
	requests   int
	duplicates int
	truncated  bool

	// built from rows with the current filter
	samples  []prometheus.Metric
	site     []prometheus.Metric
	exported int
	dropped  int
}

func (p *pageViews) name() string {
	if p.kind == mintlify.Visitors {
		return "visitors"
	}
	return "pageviews"
}

// descs returns the page and site descriptors of the collector's kind.
func (p *pageViews) descs() (page, site *prometheus.Desc) {
	if p.kind == mintlify.Visitors {
		return descPageVisitors, descSiteVisitors
	}
	return descPageViews, descSitePageViews
}

func (p *pageViews) usesBudget() bool { return true }

// expectedCost is how many analytics requests the next refresh will take:
// the pages each window had last time, at least one.
func (p *pageViews) expectedCost() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, w := range p.windows {
		n += max(w.pages, 1)
	}
	return n
}

// refresh sweeps every window. A window whose sweep fails keeps its last
// good data; the first error is returned.
func (p *pageViews) refresh(ctx context.Context, now time.Time, gate func(context.Context) error) error {
	p.mu.Lock()
	windows := slices.Clone(p.windows)
	p.mu.Unlock()

	// dateTo is exclusive; truncating to the minute keeps the ranges of
	// scrapes close in time identical, and very recent data is incomplete
	// upstream anyway.
	to := now.UTC().Truncate(time.Minute)
	var errs []error
	for _, w := range windows {
		p.mu.Lock()
		hint := w.pages
		p.mu.Unlock()
		res, err := p.client.SweepRows(ctx, p.kind, p.id, mintlify.DateRange{From: to.Add(-w.duration), To: to}, mintlify.SweepOptions{
			PageSize:      p.opts.pageSize,
			Concurrency:   p.opts.concurrency,
			MaxPages:      p.opts.pageCap(len(windows)),
			ExpectedPages: hint,
			BeforeRequest: gate,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("window %s: %w", w.label, err))
			if ctx.Err() != nil || isStopping(err) {
				break // the rest would fail the same way
			}
			continue
		}
		p.mu.Lock()
		w.ok, w.rows, w.totals = true, res.Rows, res.Totals
		w.pages, w.requests, w.duplicates, w.truncated = res.Pages, res.Requests, res.Duplicates, res.Truncated
		p.build(w)
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}

// isStopping tells errors after which further windows would only fail
// again (and spend budget doing so).
func isStopping(err error) bool {
	limited, _, _ := mintlify.IsRateLimited(err)
	return limited || mintlify.IsUnauthorized(err) || mintlify.IsForbidden(err) || errors.Is(err, mintlify.ErrSweepStopped)
}

// build turns a window's rows into samples under the current filter. The
// caller holds p.mu.
func (p *pageViews) build(w *windowCache) {
	descPage, descSite := p.descs()
	project := labelPair("project", p.project)
	window := labelPair("window", w.label)
	human := labelPair("traffic", trafficHuman)
	ai := labelPair("traffic", trafficAI)

	keep := make([]mintlify.PageViewRow, 0, len(w.rows))
	dropped := 0
	for _, r := range w.rows {
		if len(r.Path) > maxPathBytes || !utf8.ValidString(r.Path) || !p.filter.allowed(r.Path) {
			dropped++
			continue
		}
		keep = append(keep, r)
	}
	if m := p.filter.maxPaths; m > 0 && len(keep) > m {
		// Keep the most viewed pages; ties by path, so the choice is stable.
		slices.SortFunc(keep, func(a, b mintlify.PageViewRow) int {
			if a.Total != b.Total {
				if a.Total > b.Total {
					return -1
				}
				return 1
			}
			return strings.Compare(a.Path, b.Path)
		})
		dropped += len(keep) - m
		keep = keep[:m]
	}
	samples := make([]prometheus.Metric, 0, 2*len(keep))
	backing := make([]sample, 2*len(keep))
	labels := make([]*dto.LabelPair, 8*len(keep))
	for i, r := range keep {
		path := labelPair("path", r.Path)
		// Label pairs sorted by name: path, project, traffic, window.
		lh := labels[8*i : 8*i+4 : 8*i+4]
		lh[0], lh[1], lh[2], lh[3] = path, project, human, window
		la := labels[8*i+4 : 8*i+8 : 8*i+8]
		la[0], la[1], la[2], la[3] = path, project, ai, window
		// ai before human: the registry sorts each family by label values
		// on every scrape, and input already in that order sorts fastest.
		backing[2*i] = sample{desc: descPage, labels: la, value: r.AI}
		backing[2*i+1] = sample{desc: descPage, labels: lh, value: r.Human}
		samples = append(samples, &backing[2*i], &backing[2*i+1])
	}
	site := []prometheus.Metric{
		newSample(descSite, w.totals.Human, project, human, window),
		newSample(descSite, w.totals.AI, project, ai, window),
	}
	switch other := w.totals.Total - w.totals.Human - w.totals.AI; {
	case p.kind == mintlify.Visitors:
		// The visitors total counts a visitor once even if it came as both
		// human and AI: it is no sum, so it gets its own name.
		site = append(site, newSample(descSiteUniqueVisitors, w.totals.Total, project, window))
	case other > 0:
		site = append(site, newSample(descSite, other, project, labelPair("traffic", trafficOther), window))
	}
	w.samples, w.site, w.exported, w.dropped = samples, site, len(keep), dropped
}

// collect emits the cached series. fresh is false when the data is older
// than max_age: then the page and site series are left out rather than
// shown as current, and only the bookkeeping series remain.
func (p *pageViews) collect(ch chan<- prometheus.Metric, _ time.Time, fresh bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.windows {
		if !w.ok {
			continue
		}
		if fresh {
			for _, m := range w.samples {
				ch <- m
			}
			for _, m := range w.site {
				ch <- m
			}
		}
		if p.kind == mintlify.Visitors {
			continue // the walk's bookkeeping is reported for page views only
		}
		lv := []string{p.project, w.label}
		ch <- prometheus.MustNewConstMetric(descPathsExported, prometheus.GaugeValue, float64(w.exported), lv...)
		ch <- prometheus.MustNewConstMetric(descPathsDropped, prometheus.GaugeValue, float64(w.dropped), lv...)
		ch <- prometheus.MustNewConstMetric(descSweepTruncated, prometheus.GaugeValue, boolFloat(w.truncated), lv...)
		ch <- prometheus.MustNewConstMetric(descSweepDuplicates, prometheus.GaugeValue, float64(w.duplicates), lv...)
		ch <- prometheus.MustNewConstMetric(descSweepRequests, prometheus.GaugeValue, float64(w.requests), lv...)
	}
}

// adopt takes over the cached sweeps of old for windows that still exist
// (same label), so a reload does not throw data away or cost a sweep, and
// rebuilds their series under the new filter.
func (p *pageViews) adopt(old *pageViews) {
	if old == nil || old.id != p.id || old.kind != p.kind {
		return
	}
	old.mu.Lock()
	byLabel := make(map[string]windowCache, len(old.windows))
	for _, w := range old.windows {
		byLabel[w.label] = *w // copied under the old lock: a refresh may still run
	}
	old.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, w := range p.windows {
		o, ok := byLabel[w.label]
		if !ok || !o.ok {
			continue
		}
		o.duration = w.duration
		p.windows[i] = &o
		p.build(&o)
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
