package engine

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// Tests of the month-to-date range: day-only dates, and the fallback
// when the upstream refuses a future dateTo.

// monthOf is the start of t's UTC calendar month, worked out here rather
// than by the client's MonthToDate, whose answer the test checks.
func monthOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// tomorrowOf is the start of the UTC day after t's.
func tomorrowOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
}

// asks reports whether r is a request of kind k's endpoint.
func asks(r mockapi.Request, k spec.Collector) bool {
	return strings.HasSuffix(r.Path, "/"+k.Endpoint)
}

// Every request of a counter asks for [1st of the month, tomorrow) in
// YYYY-MM-DD, over several days and a month boundary; the windows asked
// for on top keep their RFC 3339 ranges. Every kind of the table that
// counts the month and the windows is on.
func TestCounterRequestsCarryDayDates(t *testing.T) {
	t.Parallel() // hours of simulated work; a test engine shares nothing
	kinds, collectors := testkit.KindsCounting(collector.All, spec.MonthAndWindows)
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n", "    windows: [24h]\n"+collectors),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 200}}}, Options{})
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
		for _, k := range kinds {
			if asks(r, k) {
				counters[k.Name]++
			}
		}
		months[from] = true
	}
	for _, k := range kinds {
		if counters[k.Name] < 10 {
			t.Errorf("%d counter requests of %s in three days", counters[k.Name], k.Name)
		}
	}
	if !months["2026-11-01"] || !months["2026-12-01"] {
		t.Errorf("counter months asked for: %v, want November and December", months)
	}
	e.expectWithinBudget(t)
}

// monthRange is the date range of the month window of kind k for docs:
// its walk's, or its payload's.
func (e *testEngine) monthRange(t *testing.T, k string) *mintlify.DateRange {
	t.Helper()
	w := e.window(t, k, "docs", "month")
	if walk := shownWalk(w); walk != nil {
		return &walk.Range
	}
	return w.Range
}

// An upstream that refuses a dateTo in the future (400) gets [1st, now)
// in RFC 3339 instead: the counters keep coming, the fallback is said
// once in the log and shown in the window's range, no refresh counts as
// failed, and a restart remembers it. The next month tries day dates
// again. (The series that shows it is tested in collector:
// TestDateFallbackSeries.)
func TestCounterFallbackWhenFutureDateRefused(t *testing.T) {
	site := mockapi.Site{Seed: 6, Paths: 300}
	kinds, collectors := testkit.KindsCounting(collector.All, spec.MonthAndWindows)
	logs := &testkit.LockedBuffer{}
	cfg := docsConfig("  min_refresh_interval: 1m\n", collectors)
	e := newTestEngine(t, cfg, mockapi.Options{RefuseFutureDates: true, Projects: map[string]mockapi.Site{"proj-docs": site}},
		Options{StoragePath: t.TempDir() + "/state.json", Logger: bufLogger(logs)})
	for range 6 {
		e.refresh()
		e.clock.Advance(10 * time.Minute)
	}
	for _, k := range kinds {
		h := e.health(t, k.Name, "docs")
		if !h.Up {
			t.Errorf("%s is down", k.Name)
		}
		if r := e.monthRange(t, k.Name); r == nil || r.Days {
			t.Errorf("%s: the month's range %v is not the fallback's", k.Name, r)
		}
		for reason, n := range h.FailCounts {
			if n != 0 {
				t.Errorf("%s: the refused day range counts as a failed refresh (%s)", k.Name, reason)
			}
		}
	}
	refused := func() int {
		return e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == 400 })
	}
	if got := strings.Count(logs.String(), "refused a dateTo in the future"); got != len(kinds) {
		t.Errorf("the fallback was logged %d times, want once per collector (%d)", got, len(kinds))
	}
	if n := refused(); n != len(kinds) {
		t.Errorf("%d answers of 400, want one per collector", n)
	}
	// The counters hold [1st, the last refresh) as the upstream answers it.
	last := e.clock.Now().Add(-10 * time.Minute).Truncate(time.Minute)
	totals, _ := site.Views(mintlify.MonthToDate(last).From, last)
	if walk, _ := e.monthWalk(t, "docs"); walk.Totals.Human != float64(totals.Human) {
		t.Errorf("site human = %v, want %d", walk.Totals.Human, totals.Human)
	}

	e = e.restart(t, cfg)
	e.clock.Advance(time.Hour)
	e.refresh()
	if n := refused(); n != len(kinds) {
		t.Errorf("after a restart: %d answers of 400, want still %d (the fallback is remembered)", n, len(kinds))
	}

	// Next month: day dates once more, refused once more.
	e.clock.Set(time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC))
	e.refresh()
	if n := refused(); n != 2*len(kinds) {
		t.Errorf("in the next month: %d answers of 400, want %d (one more try per collector)", n, 2*len(kinds))
	}
	if r := e.monthRange(t, collector.PageViews); r == nil || r.Days || !e.health(t, collector.PageViews, "docs").Up {
		t.Error("the next month's counters do not fall back")
	}
	e.expectWithinBudget(t)
}

// manyProjects is a config of n projects under one key, page views only,
// with the default budget (100 an hour, reserve 10: 90), max_age (3h) and
// max_refresh_interval (6h).
func manyProjects(n int) string {
	var b strings.Builder
	b.WriteString("global:\n  api_url: %s\nkeys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\nprojects:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: proj-%04d\n    collectors: [pageviews]\n", i)
	}
	return b.String()
}

const cycleWarning = "the key's analytics budget cannot refresh its work within max_age"

// cycleWarnings are the WARN lines of logs that say cycleWarning.
func cycleWarnings(logs *testkit.LockedBuffer) []string {
	var ws []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, cycleWarning) {
			ws = append(ws, line)
		}
	}
	return ws
}

// TestBudgetCycleOfAThousandProjects: 1,000 projects of one request a
// refresh each under one key of 90 requests an hour take 1,000/90 h =
// 40,000 s a refresh. The engine says so: one WARN at start with the
// numbers, the key's cycle 40000 s, and each project's refresh interval
// 40000 s, not the 21,600 of max_refresh_interval. A reload warns again,
// once; a reload to 100 projects (4,000 s, within max_age) does not.
func TestBudgetCycleOfAThousandProjects(t *testing.T) {
	logs := &testkit.LockedBuffer{}
	e := newTestEngine(t, manyProjects(1000), mockapi.Options{}, Options{Logger: bufLogger(logs)})
	warnings := func() []string { return cycleWarnings(logs) }
	ws := warnings()
	if len(ws) != 1 {
		t.Fatalf("%d cycle warnings at start, want 1:\n%s", len(ws), logs)
	}
	for _, want := range []string{"key=acme", "units=1000", "requests_per_round=1000", "limit_per_hour=90", "cycle=11h6m40s", "max_age=3h0m0s"} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("the warning lacks %s: %s", want, ws[0])
		}
	}
	if got := e.key(t, "acme").Cycle; got != 40000*time.Second {
		t.Errorf("cycle %v, want 40000 s", got)
	}
	for _, p := range []string{"proj-0000", "proj-0999"} {
		if got := e.health(t, collector.PageViews, p).Interval; got != 40000*time.Second {
			t.Errorf("%s: interval %v, want 40000 s", p, got)
		}
	}

	e.apply(t, manyProjects(1000))
	if n := len(warnings()); n != 2 {
		t.Errorf("%d cycle warnings after a reload, want 2", n)
	}
	e.apply(t, manyProjects(100))
	if n := len(warnings()); n != 2 {
		t.Errorf("a reload within max_age warned: %d warnings", n)
	}
	if got := e.key(t, "acme").Cycle; got != 4000*time.Second {
		t.Errorf("cycle %v after the reload to 100 projects, want 4000 s", got)
	}
}
