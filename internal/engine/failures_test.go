package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// Tests of the failure policy and of what one sweep costs: what a
// refresh that fails does to the unit's health and data, the back-off,
// and the requests.

// shownPaths is how many paths docs' page views show now: the month
// walk's rows while the data is younger than max_age, else none.
func (e *testEngine) shownPaths(t *testing.T) int {
	t.Helper()
	u := e.unit(t, collector.PageViews, "docs")
	if !u.Fresh() {
		return 0
	}
	w, _ := e.monthWalk(t, "docs")
	return len(w.Rows)
}

// expectRecovery clears the faults, lets any back-off pass and checks
// that the next refresh brings docs' page views back, paths of them.
func (e *testEngine) expectRecovery(t *testing.T, paths int) {
	t.Helper()
	e.api.Server.ClearFaults()
	e.clock.Advance(time.Hour)
	e.refresh()
	if !e.health(t, collector.PageViews, "docs").Up || e.shownPaths(t) != paths {
		t.Fatal("no recovery on the first good refresh after the fault")
	}
}

func TestConcurrentScrapesShareOneSweep(t *testing.T) {
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 100}}}, Options{})
	// Slow answers make the ten scrapes overlap for real.
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Latency: 50 * time.Millisecond})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.Refresh(t.Context())
		}()
	}
	wg.Wait()
	e.Wait()
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("10 concurrent scrapes made %d upstream requests, want 1", n)
	}
	// Further scrapes before the interval has passed cost nothing.
	for range 5 {
		e.clock.Advance(5 * time.Second)
		e.refresh()
	}
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("scrapes inside the refresh interval made %d requests, want 1", n)
	}
}

func TestOneHourThreeProjectsStaysInBudget(t *testing.T) {
	sites := map[string]mockapi.Site{
		"p1": {Seed: 1, Paths: 2000}, "p2": {Seed: 2, Paths: 2000}, "p3": {Seed: 3, Paths: 2000},
	}
	e := newTestEngine(t, `
global:
  api_url: %s
keys:
  - name: acme
    api_key_env: TEST_MINTLIFY_KEY
projects:
  - {id: p1}
  - {id: p2}
  - {id: p3}
`, mockapi.Options{Projects: sites, RetryAfter: true}, Options{})
	// Scrapes every 5 s for two simulated hours; the budget is checked over
	// every sliding hour of that.
	e.refreshEvery(5*time.Second, 2*720)
	e.expectWithinBudget(t)
	// 3 projects × 8 pages = 24 requests a refresh; 90 an hour allow 3.75
	// refreshes, so two hours must see at least 6 refreshes.
	if n := e.requests(mockapi.EndpointViews); n < 6*24 {
		t.Fatalf("only %d requests in two hours: the budget is under-used", n)
	}
	if got := e.health(t, collector.PageViews, "p1").Interval; got != 960*time.Second {
		t.Errorf("refresh interval = %v, want 960 s (3600 s × 24 requests / 90)", got)
	}
	for _, p := range []string{"p1", "p2", "p3"} {
		if !e.health(t, collector.PageViews, p).Up {
			t.Errorf("project %s is not up", p)
		}
	}
}

func TestServerErrorStorm(t *testing.T) {
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}}, Options{})
	e.refresh()
	if !e.health(t, collector.PageViews, "docs").Up {
		t.Fatal("not up after a good sweep")
	}
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	for range 20 {
		e.clock.Advance(5 * time.Minute)
		e.refresh()
		if e.health(t, collector.PageViews, "docs").Up {
			t.Fatal("up stays true while every refresh fails")
		}
	}
	// 100 minutes in: younger than max_age (3h), so the last data is served.
	if e.shownPaths(t) != 10 {
		t.Fatal("cached data dropped before max_age")
	}
	e.clock.Advance(2 * time.Hour)
	e.refresh()
	if e.shownPaths(t) != 0 {
		t.Fatal("data older than max_age is still shown as current")
	}
	if e.health(t, collector.PageViews, "docs").FailCounts[mintlify.ReasonServerError] < 5 {
		t.Error("server errors not counted")
	}
	e.expectRecovery(t, 10)
}

func TestRateLimitStorm(t *testing.T) {
	for _, retryAfter := range []string{"", "600"} {
		t.Run("Retry-After="+retryAfter, func(t *testing.T) {
			e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}}, Options{})
			e.refresh()
			e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Status: 429, RetryAfter: retryAfter})
			e.clock.Advance(10 * time.Minute)
			before := e.requests(mockapi.EndpointViews)
			e.refresh()
			if e.requests(mockapi.EndpointViews) != before+1 {
				t.Fatal("expected one request to meet the 429")
			}
			if !e.health(t, collector.PageViews, "docs").Up || e.shownPaths(t) != 10 {
				t.Fatal("a 429 must not turn up false or drop data younger than max_age")
			}
			backoff := e.key(t, "acme").Backoff
			if retryAfter != "" && backoff != 600*time.Second {
				t.Fatalf("backoff %v, want the Retry-After of 600 s", backoff)
			}
			if retryAfter == "" && backoff != 60*time.Second {
				t.Fatalf("backoff %v, want 60 s (first exponential step)", backoff)
			}
			// Scrapes during the backoff send nothing.
			for range 5 {
				e.clock.Advance(5 * time.Second)
				e.refresh()
			}
			if e.requests(mockapi.EndpointViews) != before+1 {
				t.Fatal("requests sent during the backoff")
			}
			// Past max_age: down, and no paths shown.
			for range 40 {
				e.clock.Advance(5 * time.Minute)
				e.refresh()
			}
			if e.health(t, collector.PageViews, "docs").Up || e.shownPaths(t) != 0 {
				t.Fatal("after max_age of 429s, the unit must be down and its paths gone")
			}
			e.expectRecovery(t, 10)
		})
	}
}

func TestUnauthorizedIsNotRetriedSoon(t *testing.T) {
	key := "mint_revokedkey"
	logs := &testkit.LockedBuffer{}
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}},
		Options{Getenv: func(string) string { return key }, Logger: bufLogger(logs)})
	e.refresh()
	if e.health(t, collector.PageViews, "docs").Up {
		t.Fatal("up with a refused key")
	}
	for range 60 {
		e.clock.Advance(time.Minute)
		e.refresh()
	}
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("%d requests in an hour with a refused key; want 1 (no retry storm)", n)
	}
	// Fixing the key and reloading retries at once.
	cfg, err := config.Parse([]byte(fmt.Sprintf(oneProject, e.api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	key = testKey
	if err := e.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	if e.refresh(); !e.health(t, collector.PageViews, "docs").Up {
		t.Fatal("a reload with a working key did not refresh at once")
	}
	s := logs.String()
	if !strings.Contains(s, "401") || !strings.Contains(s, "expired") {
		t.Errorf("the log does not say what to fix:\n%s", s)
	}
	if strings.Contains(s, "mint_revokedkey") {
		t.Error("the key is in the log")
	}
}

func TestDuplicateRowsAcrossPages(t *testing.T) {
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}}, Options{})
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, DuplicateAcrossPages: true})
	e.refresh()
	w, _ := e.monthWalk(t, "docs")
	if len(w.Rows) != 600 {
		t.Fatalf("%d paths, want 600 (each path once)", len(w.Rows))
	}
	if w.Duplicates != 2 {
		t.Fatal("duplicates not counted")
	}
}

func TestSiteLargerThanTheBudgetIsTruncatedNotStarved(t *testing.T) {
	t.Parallel() // hours of simulated work; a test engine shares nothing
	// 30 000 paths are 120 pages: more than the 90 requests an hour the
	// key allows. The walk stops at 90 pages and says so, instead of being
	// cut off by the budget every time and never producing data.
	e := newTestEngine(t, docsConfig("", "    max_paths: 0\n"), mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 30000}}}, Options{})
	e.refresh()
	if !e.health(t, collector.PageViews, "docs").Up {
		t.Fatal("not up")
	}
	w, win := e.monthWalk(t, "docs")
	if !w.Truncated && complete(win) {
		t.Fatal("truncation not reported: the walk shown claims to be complete")
	}
	if len(w.Rows) != 90*250 {
		t.Fatalf("%v paths, want %d (90 pages)", len(w.Rows), 90*250)
	}
	if n := e.requests(mockapi.EndpointViews); n != 90 {
		t.Fatalf("%d requests, want 90", n)
	}
}

// requestCounts counts the requests OnRequest is told of, by endpoint and
// status (0: no answer).
type requestCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *requestCounts) observe(endpoint string, code int, _ time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[fmt.Sprintf("%s %d", endpoint, code)]++
}

func (c *requestCounts) of(endpoint string, code int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[fmt.Sprintf("%s %d", endpoint, code)]
}

// TestSlowUpstreamDoesNotHoldTheScrape: with the upstream hanging, each
// scrape's Refresh returns at its own deadline with the last good data
// shown, and however many scrapes come only one sweep runs. No
// wall-clock bound: "did not wait for the upstream" is that no views
// request had ended when Refresh returned (the upstream hangs for an hour
// and the request timeout is an hour too), and "one sweep" is what
// OnRequest was told after Close has ended the sweep. (The request
// series are tested in collector: TestRequestSeriesOfASweepCutShort.)
func TestSlowUpstreamDoesNotHoldTheScrape(t *testing.T) {
	reqs := &requestCounts{}
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 3h\n  request_timeout: 1h\n", ""),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}}, Options{OnRequest: reqs.observe})
	e.refresh() // good data first
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("%d views requests for 10 paths, want 1", n)
	}
	arrived := make(chan string, 1)
	e.api.Server.SetFault(mockapi.Fault{Latency: time.Hour, Arrived: arrived})
	e.clock.Advance(2 * time.Hour)
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		e.Refresh(ctx)
		cancel()
		if n := e.requests(mockapi.EndpointViews); n != 1 {
			t.Fatalf("a views request ended before Refresh returned (%d in all): the scrape waited for the upstream", n)
		}
		if e.shownPaths(t) != 10 {
			t.Fatal("the last good data is not shown while the refresh runs")
		}
	}
	// The sweep runs on after the scrapes: wait for its request to reach
	// the API (on a loaded machine it may not have yet), then cut it short.
	select {
	case <-arrived:
	case <-testkit.HangGuard(t).Done():
		t.Fatal("the refresh never sent its views request")
	}
	e.Close() // cancels the hung sweep
	// Only one sweep ran however many scrapes came: one good request and
	// one cut short, as the client told them before Close returned.
	if got := reqs.of("views", 200); got != 1 {
		t.Errorf("%v views requests answered, want 1", got)
	}
	if got := reqs.of("views", 0); got != 1 {
		t.Errorf("%v views requests cut short, want 1: more than one sweep ran", got)
	}
}
