package collector_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// Tests of the month-to-date counters: day-only dates, the month
// boundary, the fallback when the upstream refuses a future dateTo, and
// max_paths over the month.

const allAdditive = "    collectors: [pageviews, feedback, searches, assistant]\n"

// monthOf is the start of t's UTC calendar month.
func monthOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// tomorrowOf is the start of the UTC day after t's.
func tomorrowOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
}

// Every request of a counter asks for [1st of the month, tomorrow) in
// YYYY-MM-DD, over several days and a month boundary; the windows asked
// for on top keep their RFC 3339 ranges.
func TestCounterRequestsCarryDayDates(t *testing.T) {
	t.Parallel() // hours of simulated work; an env shares nothing (see newEnv)
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n", "    windows: [24h]\n"+allAdditive),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 200}}})
	e.clock.Set(time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC))
	e.refreshEvery(20*time.Minute, 3*24*3) // three days, across 1 December
	counters := map[string]int{}
	months := map[string]bool{}
	for _, r := range e.api.Server.Requests() {
		if r.Endpoint == mockapi.EndpointGetJob {
			continue
		}
		q, err := url.ParseQuery(r.Query)
		if err != nil {
			t.Fatal(err)
		}
		from, to := q.Get("dateFrom"), q.Get("dateTo")
		if len(from) != len("2006-01-02") {
			// A window: RFC 3339, 24h long, ending by now.
			f, err1 := time.Parse(time.RFC3339, from)
			tt, err2 := time.Parse(time.RFC3339, to)
			if err1 != nil || err2 != nil || tt.Sub(f) != 24*time.Hour || tt.After(r.Time) {
				t.Fatalf("%s: window request %q is not an RFC 3339 range of 24h ending by %s", r.Endpoint, r.Query, r.Time)
			}
			continue
		}
		f, err1 := time.Parse("2006-01-02", from)
		tt, err2 := time.Parse("2006-01-02", to)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: counter request %q does not carry YYYY-MM-DD dates", r.Endpoint, r.Query)
		}
		if !f.Equal(monthOf(r.Time)) || !tt.Equal(tomorrowOf(r.Time)) {
			t.Fatalf("%s at %s: counter request %q, want dateFrom %s and dateTo %s", r.Endpoint, r.Time, r.Query,
				monthOf(r.Time).Format("2006-01-02"), tomorrowOf(r.Time).Format("2006-01-02"))
		}
		counters[r.Endpoint]++
		months[from] = true
	}
	for _, ep := range []string{mockapi.EndpointViews, mockapi.EndpointFeedback, mockapi.EndpointSearches, mockapi.EndpointCallerStats} {
		if counters[ep] < 10 {
			t.Errorf("%d counter requests to %s in three days", counters[ep], ep)
		}
	}
	if !months["2026-11-01"] || !months["2026-12-01"] {
		t.Errorf("counter months asked for: %v, want November and December", months)
	}
	e.expectWithinBudget()
}

// Across the 1st the counters start again from zero, created at the new
// month's start; the increase() Prometheus computes over the rollover
// (deltas, a drop counting as a reset) is the views of that time.
func TestCountersAcrossMonthBoundary(t *testing.T) {
	site := mockapi.Site{Seed: 5, Paths: 300, OtherTraffic: true}
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n", allAdditive),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": site}})
	start := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)
	e.clock.Set(start)
	const series = `mintlify_site_page_views_total{project="docs",traffic="human"}`
	var values []float64
	var resets int
	var end time.Time
	for i := range 4 * 12 { // four hours, a scrape every 5 minutes
		out := e.scrape()
		if mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 1 {
			t.Fatalf("%s: pageviews down", e.clock.Now())
		}
		v := mustValue(t, out, series)
		if len(values) > 0 && v < values[len(values)-1] {
			resets++
			if now := e.clock.Now(); now.Before(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
				t.Fatalf("the counter dropped at %s, before the month ended", now)
			}
		}
		values = append(values, v)
		end = e.clock.Now()
		if i < 4*12-1 {
			e.clock.Advance(5 * time.Minute)
		}
	}
	if resets != 1 {
		t.Fatalf("%d resets in four hours across the 1st, want 1", resets)
	}
	increase := 0.0
	for i := 1; i < len(values); i++ {
		if d := values[i] - values[i-1]; d >= 0 {
			increase += d
		} else {
			increase += values[i]
		}
	}
	totals, _ := site.Views(start, end)
	if increase != float64(totals.Human) {
		t.Errorf("increase over the rollover = %v, want the %d human views from %s to %s", increase, totals.Human, start, end)
	}
	// Now in December: every counter counts from the 1st of December.
	dec := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	decTotals, _ := site.Views(dec, end)
	if got := values[len(values)-1]; got != float64(decTotals.Human) {
		t.Errorf("December counter = %v, want %d", got, decTotals.Human)
	}
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "mintlify_page_views_total", "mintlify_site_page_views_total", "mintlify_page_feedback_total",
			"mintlify_searches_total", "mintlify_assistant_queries_total":
			seen[mf.GetName()] = true
			for _, m := range mf.GetMetric() {
				if ct := m.GetCounter().GetCreatedTimestamp().AsTime(); !ct.Equal(dec) {
					t.Fatalf("%s %v created %s, want %s", mf.GetName(), m.GetLabel(), ct, dec)
				}
			}
		}
	}
	if len(seen) != 5 {
		t.Errorf("counters exported after the rollover: %v, want all five", seen)
	}
	e.expectWithinBudget()
}

// An upstream that refuses a dateTo in the future (400) gets [1st, now)
// in RFC 3339 instead: the counters keep coming, the fallback is said
// once in the log and shown in a metric, no refresh counts as failed, and
// a restart remembers it. The next month tries day dates again.
func TestCounterFallbackWhenFutureDateRefused(t *testing.T) {
	site := mockapi.Site{Seed: 6, Paths: 300}
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n", allAdditive), envOpts{
		sites:     map[string]mockapi.Site{"proj-docs": site},
		mock:      func(o *mockapi.Options) { o.RefuseFutureDates = true },
		statePath: t.TempDir() + "/state.json",
	})
	var out string
	for range 6 {
		out = e.scrape()
		e.clock.Advance(10 * time.Minute)
	}
	collectors := []string{"pageviews", "feedback", "searches", "assistant"}
	for _, c := range collectors {
		if mustValue(t, out, `mintlify_up{collector="`+c+`",project="docs"}`) != 1 {
			t.Errorf("%s is down", c)
		}
		if mustValue(t, out, `mintlify_analytics_date_fallback{collector="`+c+`",project="docs"}`) != 1 {
			t.Errorf("%s: the fallback is not shown", c)
		}
		for _, r := range []string{"bad_response", "other"} {
			if mustValue(t, out, `mintlify_refresh_failures_total{collector="`+c+`",project="docs",reason="`+r+`"}`) != 0 {
				t.Errorf("%s: the refused day range counts as a failed refresh (%s)", c, r)
			}
		}
	}
	if got := strings.Count(e.logs.String(), "refused a dateTo in the future"); got != len(collectors) {
		t.Errorf("the fallback was logged %d times, want once per collector (%d)", got, len(collectors))
	}
	if n := e.requestsWithStatus(400); n != len(collectors) {
		t.Errorf("%d answers of 400, want one per collector", n)
	}
	// The counters hold [1st, the last refresh) as the upstream answers it.
	last := e.clock.Now().Add(-10 * time.Minute).Truncate(time.Minute)
	totals, _ := site.Views(monthOf(last), last)
	if got := mustValue(t, out, `mintlify_site_page_views_total{project="docs",traffic="human"}`); got != float64(totals.Human) {
		t.Errorf("site human = %v, want %d", got, totals.Human)
	}

	e.restart()
	e.clock.Advance(time.Hour)
	e.scrape()
	if n := e.requestsWithStatus(400); n != len(collectors) {
		t.Errorf("after a restart: %d answers of 400, want still %d (the fallback is remembered)", n, len(collectors))
	}

	// Next month: day dates once more, refused once more.
	e.clock.Set(time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	out = e.scrape()
	if n := e.requestsWithStatus(400); n != 2*len(collectors) {
		t.Errorf("in the next month: %d answers of 400, want %d (one more try per collector)", n, 2*len(collectors))
	}
	if mustValue(t, out, `mintlify_analytics_date_fallback{collector="pageviews",project="docs"}`) != 1 ||
		mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 1 {
		t.Error("the next month's counters do not fall back")
	}
	e.expectWithinBudget()
}

// An upstream that takes a future dateTo (the default) never sees the
// fallback: the metric is 0 and no request is refused.
func TestCounterNoFallbackWhenAccepted(t *testing.T) {
	e := newEnv(t, docsConfig("", allAdditive), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 6, Paths: 30}}})
	out := e.scrape()
	for _, c := range []string{"pageviews", "feedback", "searches", "assistant"} {
		if mustValue(t, out, `mintlify_analytics_date_fallback{collector="`+c+`",project="docs"}`) != 0 {
			t.Errorf("%s: fallback shown though the upstream took the day range", c)
		}
	}
	if n := e.requestsWithStatus(400); n != 0 {
		t.Errorf("%d answers of 400", n)
	}
}

// max_paths keeps the month's most viewed paths.
func TestMaxPathsKeepsTheMonthsMostViewed(t *testing.T) {
	site := mockapi.Site{Seed: 8, Paths: 120}
	e := newEnv(t, docsConfig("", "    max_paths: 10\n"), envOpts{sites: map[string]mockapi.Site{"proj-docs": site}})
	out := e.scrape()
	_, rows := site.Views(monthOf(epoch), epoch) // busiest first, ties by path
	var want, got []string
	for _, r := range rows[:10] {
		want = append(want, r.Path)
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, `mintlify_page_views_total{path="`); ok && strings.Contains(line, `traffic="human"`) {
			got = append(got, rest[:strings.IndexByte(rest, '"')])
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("exported paths %v, want the month's 10 most viewed %v", got, want)
	}
	if mustValue(t, out, `mintlify_page_views_paths_dropped{project="docs",window="month"}`) != 110 {
		t.Error("dropped paths not counted")
	}
}

// Unique visitors do not add up over days, so they have no counter: the
// visitors collector of a project without windows exports the 24h window.
func TestVisitorsStayWindowGauges(t *testing.T) {
	e := newEnv(t, docsConfig("", "    collectors: [visitors]\n"), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 2, Paths: 20}}})
	out := e.scrape()
	if _, ok := value(out, `mintlify_site_unique_visitors{project="docs",window="24h"}`); !ok {
		t.Fatal("no 24h visitors window")
	}
	if strings.Contains(out, "visitors_total") || strings.Contains(out, `window="month"`) {
		t.Fatal("visitors are exported as a month counter")
	}
}
