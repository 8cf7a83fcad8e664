package exporter_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// Tests of the month-to-date counters' series: the month boundary, the
// fallback's gauge, and max_paths over the month. (The requests' date
// ranges and the fallback itself are tested in internal/engine.)

// Across the 1st the counters start again from zero, created at the new
// month's start; the increase() Prometheus computes over the rollover
// (deltas, a drop counting as a reset) is the views of that time.
func TestCountersAcrossMonthBoundary(t *testing.T) {
	site := mockapi.Site{Seed: 5, Paths: 300, OtherTraffic: true}
	kinds, collectors := testkit.KindsCounting(collector.All, spec.MonthAndWindows)
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n", collectors),
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
	counters := map[string]bool{}
	for _, k := range kinds {
		for _, f := range k.Counters() {
			counters[f.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, mf := range mfs {
		if counters[mf.GetName()] {
			seen[mf.GetName()] = true
			for _, m := range mf.GetMetric() {
				if ct := m.GetCounter().GetCreatedTimestamp().AsTime(); !ct.Equal(dec) {
					t.Fatalf("%s %v created %s, want %s", mf.GetName(), m.GetLabel(), ct, dec)
				}
			}
		}
	}
	if len(seen) != len(counters) {
		t.Errorf("counters exported after the rollover: %v, want all of %v", seen, counters)
	}
	e.expectWithinBudget()
}

// TestDateFallbackSeries: when the upstream refuses a dateTo in the
// future, mintlify_analytics_date_fallback is 1 for every collector
// that counts the month, in this month and the next. (The fallback
// itself is TestCounterFallbackWhenFutureDateRefused, in
// internal/engine.)
func TestDateFallbackSeries(t *testing.T) {
	kinds, collectors := testkit.KindsCounting(collector.All, spec.MonthAndWindows)
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n", collectors), envOpts{
		sites: map[string]mockapi.Site{"proj-docs": {Seed: 6, Paths: 300}},
		mock:  func(o *mockapi.Options) { o.RefuseFutureDates = true },
	})
	out := e.scrape()
	for _, k := range kinds {
		if mustValue(t, out, `mintlify_analytics_date_fallback{collector="`+k.Name+`",project="docs"}`) != 1 {
			t.Errorf("%s: the fallback is not shown", k.Name)
		}
	}
	e.clock.Set(time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	if mustValue(t, e.scrape(), `mintlify_analytics_date_fallback{collector="pageviews",project="docs"}`) != 1 {
		t.Error("the next month's fallback is not shown")
	}
}

// An upstream that takes a future dateTo (the default) never sees the
// fallback: the metric is 0 and no request is refused.
func TestCounterNoFallbackWhenAccepted(t *testing.T) {
	kinds, collectors := testkit.KindsCounting(collector.All, spec.MonthAndWindows)
	e := newEnv(t, docsConfig("", collectors), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 6, Paths: 30}}})
	out := e.scrape()
	for _, k := range kinds {
		if mustValue(t, out, `mintlify_analytics_date_fallback{collector="`+k.Name+`",project="docs"}`) != 0 {
			t.Errorf("%s: fallback shown though the upstream took the day range", k.Name)
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
	_, rows := site.Views(mintlify.MonthToDate(epoch).From, epoch) // busiest first, ties by path
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

// TestMonthCountersNeverFallWithinTheMonth (#46 case 13): every kind with
// month-to-date counters, when the upstream's clock steps back six hours
// within the month so that its month to date is lower: every counter
// keeps the highest value it served (a fall is a reset to Prometheus),
// after a restart too, the collectors stay up, and the next month starts
// from its own values.
func TestMonthCountersNeverFallWithinTheMonth(t *testing.T) {
	var names []string
	counters := map[string]bool{}
	for _, k := range collector.All {
		if k.Windows != spec.MonthAndWindows && k.Windows != spec.MonthOnly {
			continue
		}
		names = append(names, k.Name)
		for _, f := range k.Families {
			if f.Counter {
				counters[f.Name] = true
			}
		}
	}
	upstream := manualclock.New(epoch)
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n", "    collectors: ["+strings.Join(names, ", ")+"]\n"),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 5, Paths: 40, ConversationsPerHour: 4}},
			mock: func(o *mockapi.Options) { o.Clock = upstream }, statePath: filepath.Join(t.TempDir(), "state.json")})
	values := func(out string) map[string]float64 {
		m := map[string]float64{}
		for _, line := range strings.Split(out, "\n") {
			name, _, _ := strings.Cut(line, "{")
			series, v, ok := strings.Cut(line, " ")
			if f, err := strconv.ParseFloat(v, 64); ok && err == nil && counters[name] {
				m[series] = f
			}
		}
		return m
	}
	before := values(e.scrape())
	upstream.Set(epoch.Add(-6 * time.Hour))
	e.clock.Advance(time.Hour)
	out := e.scrape()
	for _, n := range names {
		if mustValue(t, out, `mintlify_up{collector="`+n+`",project="docs"}`) != 1 {
			t.Errorf("%s down after the upstream's clock stepped back", n)
		}
	}
	after := values(out)
	compared := 0
	for s, v := range after {
		if w, ok := before[s]; ok && v < w {
			t.Errorf("%s fell from %v to %v within its month", s, w, v)
		}
		if before[s] > 0 {
			compared++
		}
	}
	if compared == 0 {
		t.Fatal("no counter to compare: the test proves nothing")
	}
	e.restart()
	for s, v := range values(e.gather()) {
		if w := before[s]; v < w {
			t.Errorf("after a restart %s fell from %v to %v within its month", s, w, v)
		}
	}
	const site = `mintlify_site_page_views_total{project="docs",traffic="human"}`
	e.clock.Set(time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	upstream.Set(e.clock.Now())
	if v := mustValue(t, e.scrape(), site); v >= after[site] {
		t.Errorf("next month: %s is %v, not its own month's (below %v)", site, v, after[site])
	}
}
