package collector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

var (
	descPageFeedback = prometheus.NewDesc("mintlify_page_feedback",
		"Feedback entries on one page in the rolling window, by kind: thumbs_up, thumbs_down (contextual feedback) and code_snippet (feedback on a code block)."+cacheNote,
		[]string{"kind", "path", "project", "window"}, nil)
	descFeedbackTruncated = prometheus.NewDesc("mintlify_page_feedback_truncated",
		"1 if the upstream had feedback on more pages than the 100 one request returns (the endpoint documents no paging)."+cacheNote,
		[]string{"project", "window"}, nil)
	descSearchHits = prometheus.NewDesc("mintlify_search_hits",
		"Times a search term was searched in the rolling window; only the top search_top_n terms by hits are exported, sanitised and cut to 64 characters."+cacheNote,
		[]string{"project", "query", "window"}, nil)
	descSearchCTR = prometheus.NewDesc("mintlify_search_click_through_ratio",
		"Share of a search term's searches that led to a click on a result (0 to 1), for the exported top terms."+cacheNote,
		[]string{"project", "query", "window"}, nil)
	descSearches = prometheus.NewDesc("mintlify_searches",
		"Search events on the site in the rolling window (all terms, not only the exported ones)."+cacheNote,
		[]string{"project", "window"}, nil)
	descAssistantQueries = prometheus.NewDesc("mintlify_assistant_queries",
		"Assistant queries in the rolling window by caller: web (the docs site), api, other (integrations, SDKs)."+cacheNote,
		[]string{"caller", "project", "window"}, nil)
)

// perWindow is a collector that makes one request per window and turns
// the answer into a set of series: feedback, searches and assistant.
type perWindow struct {
	collector string // name
	project   string
	windows   []windowSpec
	fetch     func(ctx context.Context, r mintlify.DateRange, window string) ([]prometheus.Metric, error)

	mu    sync.Mutex
	cache map[string][]prometheus.Metric // by window label
}

type windowSpec struct {
	label    string
	duration time.Duration
}

func (p *perWindow) name() string      { return p.collector }
func (p *perWindow) usesBudget() bool  { return true }
func (p *perWindow) expectedCost() int { return len(p.windows) }
func (p *perWindow) adopt(old *perWindow) {
	if old == nil {
		return
	}
	old.mu.Lock()
	defer old.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.windows {
		if m, ok := old.cache[w.label]; ok {
			p.cache[w.label] = m
		}
	}
}

func (p *perWindow) refresh(ctx context.Context, now time.Time, gate func(context.Context) error) error {
	ctx = mintlify.WithGate(ctx, gate)
	to := now.UTC().Truncate(time.Minute)
	var errs []error
	for _, w := range p.windows {
		ms, err := p.fetch(ctx, mintlify.DateRange{From: to.Add(-w.duration), To: to}, w.label)
		if err != nil {
			errs = append(errs, fmt.Errorf("window %s: %w", w.label, err))
			if ctx.Err() != nil || isStopping(err) {
				break
			}
			continue
		}
		p.mu.Lock()
		p.cache[w.label] = ms
		p.mu.Unlock()
	}
	return errors.Join(errs...)
}

func (p *perWindow) collect(ch chan<- prometheus.Metric, _ time.Time, fresh bool) {
	if !fresh {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.windows {
		for _, m := range p.cache[w.label] {
			ch <- m
		}
	}
}

func newFeedback(project, id string, c *mintlify.Client, windows []windowSpec, filter pathFilter) *perWindow {
	return &perWindow{collector: "feedback", project: project, windows: windows, cache: map[string][]prometheus.Metric{},
		fetch: func(ctx context.Context, r mintlify.DateRange, window string) ([]prometheus.Metric, error) {
			page, err := c.FeedbackByPage(ctx, id, r, mintlify.MaxFeedbackLimit)
			if err != nil {
				return nil, err
			}
			ms := []prometheus.Metric{prometheus.MustNewConstMetric(descFeedbackTruncated, prometheus.GaugeValue, boolFloat(page.HasMore), project, window)}
			seen := map[string]bool{}
			for _, row := range page.Rows {
				if seen[row.Path] || len(row.Path) > maxPathBytes || !utf8.ValidString(row.Path) || !filter.allowed(row.Path) {
					continue
				}
				seen[row.Path] = true
				for kind, v := range map[string]float64{"thumbs_up": row.ThumbsUp, "thumbs_down": row.ThumbsDown, "code_snippet": row.Code} {
					ms = append(ms, prometheus.MustNewConstMetric(descPageFeedback, prometheus.GaugeValue, v, kind, row.Path, project, window))
				}
			}
			return ms, nil
		}}
}

func newSearches(project, id string, c *mintlify.Client, windows []windowSpec, topN int) *perWindow {
	return &perWindow{collector: "searches", project: project, windows: windows, cache: map[string][]prometheus.Metric{},
		fetch: func(ctx context.Context, r mintlify.DateRange, window string) ([]prometheus.Metric, error) {
			// Terms come by hits, descending: the first page is the top N.
			page, err := c.Searches(ctx, id, r, topN, "")
			if err != nil {
				return nil, err
			}
			ms := []prometheus.Metric{prometheus.MustNewConstMetric(descSearches, prometheus.GaugeValue, page.TotalSearches, project, window)}
			seen := map[string]bool{}
			for _, row := range page.Rows {
				q := sanitizeQuery(row.Query)
				if q == "" || seen[q] || len(seen) >= topN {
					continue // two terms that sanitise alike keep the first (more hits)
				}
				seen[q] = true
				ms = append(ms,
					prometheus.MustNewConstMetric(descSearchHits, prometheus.GaugeValue, row.Hits, project, q, window),
					prometheus.MustNewConstMetric(descSearchCTR, prometheus.GaugeValue, min(row.CTR, 1), project, q, window))
			}
			return ms, nil
		}}
}

func newAssistant(project, id string, c *mintlify.Client, windows []windowSpec) *perWindow {
	return &perWindow{collector: "assistant", project: project, windows: windows, cache: map[string][]prometheus.Metric{},
		fetch: func(ctx context.Context, r mintlify.DateRange, window string) ([]prometheus.Metric, error) {
			s, err := c.AssistantCallerStats(ctx, id, r)
			if err != nil {
				return nil, err
			}
			return []prometheus.Metric{
				prometheus.MustNewConstMetric(descAssistantQueries, prometheus.GaugeValue, s.Web, "web", project, window),
				prometheus.MustNewConstMetric(descAssistantQueries, prometheus.GaugeValue, s.API, "api", project, window),
				prometheus.MustNewConstMetric(descAssistantQueries, prometheus.GaugeValue, s.Other, "other", project, window),
			}, nil
		}}
}

// maxQueryRunes caps a search term used as a label value. Search terms are
// typed by readers: they may hold personal data, and every distinct one is
// a new series, so only the top few are exported, and only their start.
const maxQueryRunes = 64

// sanitizeQuery makes a search term a tidy label value: valid UTF-8,
// lower case, control characters dropped, runs of white space folded to
// one space, trimmed, at most maxQueryRunes runes.
func sanitizeQuery(q string) string {
	q = strings.ToValidUTF8(q, "")
	var b strings.Builder
	n, space := 0, false
	for _, r := range strings.ToLower(q) {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == utf8.RuneError:
			continue
		}
		if n >= maxQueryRunes {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if n >= maxQueryRunes {
				break
			}
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}
