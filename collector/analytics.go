package collector

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// perWindow is a collector that makes one request per window and turns
// the answer into a set of series: feedback, searches and assistant.
type perWindow struct {
	collector string // name
	project   string // label value
	// fetch reads the window's data into ws; build makes its series.
	fetch func(ctx context.Context, ws *windowState, r mintlify.DateRange) error
	build func(ws *windowState, window string) []prometheus.Metric
	// counters makes the month window's series: counters created at the
	// start of the month, and bookkeeping.
	counters func(ws *windowState, created time.Time) (data, book []prometheus.Metric)
}

func (p *perWindow) name() string             { return p.collector }
func (p *perWindow) cost(ws *windowState) int { return 1 }

func (p *perWindow) advance(ctx context.Context, ws *windowState, w windowSpec, now time.Time) (bool, error) {
	r := rangeFor(ws, w, now)
	err := p.fetch(ctx, ws, r)
	if refusedFuture(ws, r, err) {
		r = rangeFor(ws, w, now)
		err = p.fetch(ctx, ws, r)
		if errors.Is(err, mintlify.ErrSweepStopped) && ctx.Err() == nil {
			return false, nil // no budget left for the retry: it runs next
		}
	}
	if err != nil {
		return false, err
	}
	ws.DataTime, ws.Hint, ws.Range = now, 1, &r
	return true, nil
}

func (p *perWindow) series(ws *windowState, w windowSpec) []prometheus.Metric {
	if ws.DataTime.IsZero() {
		return nil
	}
	if !w.month {
		return p.build(ws, w.label)
	}
	if ws.Range == nil || p.counters == nil {
		return nil
	}
	data, _ := p.counters(ws, ws.Range.From)
	return data
}

// counter is a month-to-date counter created at the start of the month.
func counter(desc *prometheus.Desc, v float64, created time.Time, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetricWithCreatedTimestamp(desc, prometheus.CounterValue, v, created, labels...)
}

// bookkeeping is the month window's: whether the date fallback is in
// use. Windows have none.
func (p *perWindow) bookkeeping(ws *windowState, w windowSpec) []prometheus.Metric {
	if !w.month || ws.DataTime.IsZero() || ws.Range == nil || p.counters == nil {
		return nil
	}
	_, book := p.counters(ws, ws.Range.From)
	fallback := prometheus.MustNewConstMetric(descDateFallback, prometheus.GaugeValue, boolFloat(!ws.Range.Days), p.collector, p.project)
	return append(book, fallback)
}

func newFeedback(project, id string, c *mintlify.Client, filter pathFilter) *perWindow {
	return &perWindow{collector: kind.Feedback, project: project,
		fetch: func(ctx context.Context, ws *windowState, r mintlify.DateRange) error {
			page, err := c.FeedbackByPage(ctx, id, r, mintlify.MaxFeedbackLimit)
			if err == nil {
				ws.Feedback = page
			}
			return err
		},
		build: func(ws *windowState, window string) []prometheus.Metric {
			page := ws.Feedback
			if page == nil {
				return nil
			}
			ms := []prometheus.Metric{prometheus.MustNewConstMetric(descFeedbackTruncated, prometheus.GaugeValue, boolFloat(page.HasMore), project, window)}
			seen := map[string]bool{}
			for _, row := range page.Rows {
				if seen[row.Path] || !filter.allowed(row.Path) {
					continue
				}
				seen[row.Path] = true
				ms = append(ms,
					prometheus.MustNewConstMetric(descPageFeedback, prometheus.GaugeValue, row.ThumbsUp, "thumbs_up", row.Path, project, window),
					prometheus.MustNewConstMetric(descPageFeedback, prometheus.GaugeValue, row.ThumbsDown, "thumbs_down", row.Path, project, window),
					prometheus.MustNewConstMetric(descPageFeedback, prometheus.GaugeValue, row.Code, "code_snippet", row.Path, project, window))
			}
			return ms
		},
		counters: func(ws *windowState, created time.Time) (data, book []prometheus.Metric) {
			page := ws.Feedback
			if page == nil {
				return nil, nil
			}
			// Data like the windows' flag: a family is data or live, not both.
			data = []prometheus.Metric{prometheus.MustNewConstMetric(descFeedbackTruncated, prometheus.GaugeValue, boolFloat(page.HasMore), project, monthWindow.label)}
			seen := map[string]bool{}
			for _, row := range page.Rows {
				if seen[row.Path] || !filter.allowed(row.Path) {
					continue
				}
				seen[row.Path] = true
				data = append(data,
					counter(descPageFeedbackTotal, row.ThumbsUp, created, "thumbs_up", row.Path, project),
					counter(descPageFeedbackTotal, row.ThumbsDown, created, "thumbs_down", row.Path, project),
					counter(descPageFeedbackTotal, row.Code, created, "code_snippet", row.Path, project))
			}
			return data, book
		}}
}

func newSearches(project, id string, c *mintlify.Client, topN int) *perWindow {
	return &perWindow{collector: kind.Searches, project: project,
		fetch: func(ctx context.Context, ws *windowState, r mintlify.DateRange) error {
			// Terms come by hits, descending: the first page is the top N.
			page, err := c.Searches(ctx, id, r, topN, "")
			if err == nil {
				ws.Searches = page
			}
			return err
		},
		build: func(ws *windowState, window string) []prometheus.Metric {
			page := ws.Searches
			if page == nil {
				return nil
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
			return ms
		},
		counters: func(ws *windowState, created time.Time) (data, book []prometheus.Metric) {
			// Only the total adds up over time: the top terms of a month
			// are no sum of the top terms of its days.
			if ws.Searches == nil {
				return nil, nil
			}
			return []prometheus.Metric{counter(descSearchesTotal, ws.Searches.TotalSearches, created, project)}, nil
		}}
}

func newAssistant(project, id string, c *mintlify.Client) *perWindow {
	return &perWindow{collector: kind.Assistant, project: project,
		fetch: func(ctx context.Context, ws *windowState, r mintlify.DateRange) error {
			s, err := c.AssistantCallerStats(ctx, id, r)
			if err == nil {
				ws.Assistant = s
			}
			return err
		},
		build: func(ws *windowState, window string) []prometheus.Metric {
			s := ws.Assistant
			if s == nil {
				return nil
			}
			return []prometheus.Metric{
				prometheus.MustNewConstMetric(descAssistantQueries, prometheus.GaugeValue, s.Web, "web", project, window),
				prometheus.MustNewConstMetric(descAssistantQueries, prometheus.GaugeValue, s.API, "api", project, window),
				prometheus.MustNewConstMetric(descAssistantQueries, prometheus.GaugeValue, s.Other, "other", project, window),
			}
		},
		counters: func(ws *windowState, created time.Time) (data, book []prometheus.Metric) {
			s := ws.Assistant
			if s == nil {
				return nil, nil
			}
			return []prometheus.Metric{
				counter(descAssistantQueriesTotal, s.Web, created, "web", project),
				counter(descAssistantQueriesTotal, s.API, created, "api", project),
				counter(descAssistantQueriesTotal, s.Other, created, "other", project),
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
