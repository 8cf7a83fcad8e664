package collector_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/leakcheck"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}

var oneProject = docsConfig("  min_refresh_interval: 1m\n  max_age: 3h\n", "")

func TestGoldenMetrics(t *testing.T) {
	e := newEnv(t, docsConfig("", "    windows: [24h, 7d]\n    jobs: [job_active, job_done, job_failed, job_archived, job_missing]\n"), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 7, Paths: 4, OtherTraffic: true}}})
	seedJobs(e)
	e.scrape()
	compareGolden(t, "golden.prom", e)
	// The in-process linter: promtool's checks, without promtool.
	problems, err := testutil.GatherAndLint(e.reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// The month-to-date counters hold the views since the 1st of the month up
// to now, the created timestamp is the 1st, and a window asked for on top
// holds the window's views.
func TestPageViewsMatchUpstream(t *testing.T) {
	site := mockapi.Site{Seed: 3, Paths: 600, OtherTraffic: true}
	e := newEnv(t, docsConfig("", "    windows: [24h]\n"), envOpts{sites: map[string]mockapi.Site{"proj-docs": site}})
	out := e.scrape()
	month := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	totals, rows := site.Views(month, epoch)
	if n := e.count("mintlify_page_views_total"); n != 2*len(rows) {
		t.Fatalf("%d page series, want %d", n, 2*len(rows))
	}
	to := epoch.Truncate(time.Minute)
	_, dayRows := site.Views(to.Add(-24*time.Hour), to)
	day := map[string]mockapi.Row{}
	for _, r := range dayRows {
		day[r.Path] = r
	}
	for _, r := range rows[:20] {
		for traffic, want := range map[string]int64{"human": r.Human, "ai": r.AI} {
			got := mustValue(t, out, `mintlify_page_views_total{path="`+r.Path+`",project="docs",traffic="`+traffic+`"}`)
			if got != float64(want) {
				t.Errorf("%s %s = %v, want %d", r.Path, traffic, got, want)
			}
		}
		if got := mustValue(t, out, `mintlify_page_views{path="`+r.Path+`",project="docs",traffic="human",window="24h"}`); got != float64(day[r.Path].Human) {
			t.Errorf("%s human in 24h = %v, want %d", r.Path, got, day[r.Path].Human)
		}
	}
	if got := mustValue(t, out, `mintlify_site_page_views_total{project="docs",traffic="other"}`); got != float64(totals.Total-totals.Human-totals.AI) {
		t.Errorf("other = %v", got)
	}
	if got := mustValue(t, out, `mintlify_site_page_views_total{project="docs",traffic="human"}`); got != float64(totals.Human) {
		t.Errorf("site human = %v, want %d", got, totals.Human)
	}
	if strings.Contains(out, `traffic="total"`) {
		t.Error(`a traffic="total" series is exported`)
	}
	if got := mustValue(t, out, `mintlify_page_views_sweep_requests{project="docs",window="month"}`); got != 3 {
		t.Errorf("sweep requests = %v, want 3 (600 paths at 250 a page)", got)
	}
	// Every counter is a counter created at the start of the month.
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counters := 0
	for _, mf := range mfs {
		if !strings.HasSuffix(mf.GetName(), "_total") || strings.HasPrefix(mf.GetName(), "mintlify_refresh") || strings.HasPrefix(mf.GetName(), "mintlify_agent") {
			continue
		}
		for _, m := range mf.GetMetric() {
			counters++
			if m.GetCounter() == nil || !m.GetCounter().GetCreatedTimestamp().AsTime().Equal(month) {
				t.Fatalf("%s %v: not a counter created %s", mf.GetName(), m.GetLabel(), month)
			}
		}
	}
	if counters != 2*len(rows)+3 {
		t.Errorf("%d counters with a created timestamp, want %d", counters, 2*len(rows)+3)
	}
}

func TestConcurrentScrapesShareOneSweep(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 100}}})
	// Slow answers make the ten scrapes overlap for real.
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Latency: 50 * time.Millisecond})
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.exp.Refresh(context.Background())
		}()
	}
	wg.Wait()
	e.exp.Wait()
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("10 concurrent scrapes made %d upstream requests, want 1", n)
	}
	// Further scrapes before the interval has passed cost nothing.
	for range 5 {
		e.clock.Advance(5 * time.Second)
		e.scrape()
	}
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("scrapes inside the refresh interval made %d requests, want 1", n)
	}
}

func TestOneHourThreeProjectsStaysInBudget(t *testing.T) {
	sites := map[string]mockapi.Site{
		"p1": {Seed: 1, Paths: 2000}, "p2": {Seed: 2, Paths: 2000}, "p3": {Seed: 3, Paths: 2000},
	}
	e := newEnv(t, `
global:
  api_url: %s
keys:
  - name: acme
    api_key_env: TEST_MINTLIFY_KEY
projects:
  - {id: p1}
  - {id: p2}
  - {id: p3}
`, envOpts{sites: sites, mock: func(o *mockapi.Options) { o.RetryAfter = true }})
	// Scrapes every 5 s for two simulated hours; the budget is checked over
	// every sliding hour of that.
	e.refreshEvery(5*time.Second, 2*720)
	out := e.gather()
	e.expectWithinBudget()
	// 3 projects × 8 pages = 24 requests a round; 90 an hour allow 3.75
	// rounds, so two hours must see at least 6 rounds.
	if n := e.requests(mockapi.EndpointViews); n < 6*24 {
		t.Fatalf("only %d requests in two hours: the budget is under-used", n)
	}
	if got := mustValue(t, out, `mintlify_refresh_interval_seconds{collector="pageviews",project="p1"}`); got != 960 {
		t.Errorf("refresh interval = %v s, want 960 (3600 s × 24 requests / 90)", got)
	}
	for _, p := range []string{"p1", "p2", "p3"} {
		if mustValue(t, out, `mintlify_up{collector="pageviews",project="`+p+`"}`) != 1 {
			t.Errorf("project %s is not up", p)
		}
	}
}

// TestSlowUpstreamDoesNotHoldTheScrape: with the upstream hanging, each
// scrape answers at its own deadline with the last good data, and however
// many scrapes come only one sweep runs. No wall-clock bound: "did not
// wait for the upstream" is that no views request had ended when Refresh
// returned (the upstream hangs for an hour and the request timeout is an
// hour too), and "one sweep" is the exporter's own request counter after
// Close has ended the sweep.
func TestSlowUpstreamDoesNotHoldTheScrape(t *testing.T) {
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 3h\n  request_timeout: 1h\n", ""),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}, withAPIM: true})
	e.scrape() // good data first
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("%d views requests for 10 paths, want 1", n)
	}
	arrived := make(chan string, 1)
	e.api.Server.SetFault(mockapi.Fault{Latency: time.Hour, Arrived: arrived})
	e.clock.Advance(2 * time.Hour)
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		e.exp.Refresh(ctx)
		cancel()
		if n := e.requests(mockapi.EndpointViews); n != 1 {
			t.Fatalf("a views request ended before Refresh returned (%d in all): the scrape waited for the upstream", n)
		}
		if e.count("mintlify_page_views_total") != 20 {
			t.Fatal("the last good data is not served while the refresh runs")
		}
	}
	// The sweep runs on after the scrapes: wait for its request to reach
	// the API (on a loaded machine it may not have yet), then cut it short.
	select {
	case <-arrived:
	case <-testkit.HangGuard(t).Done():
		t.Fatal("the refresh never sent its views request")
	}
	e.exp.Close() // cancels the hung sweep; leakcheck in TestMain checks it ended
	// Only one sweep ran however many scrapes came: one good request and
	// one cut short, as the client counted them before Close returned.
	out := e.gather()
	if got := mustValue(t, out, `mintlify_api_requests_total{code="200",endpoint="views"}`); got != 1 {
		t.Errorf("%v views requests answered, want 1", got)
	}
	if got := mustValue(t, out, `mintlify_api_requests_total{code="error",endpoint="views"}`); got != 1 {
		t.Errorf("%v views requests cut short, want 1: more than one sweep ran", got)
	}
}

func TestServerErrorStorm(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
	up := `mintlify_up{collector="pageviews",project="docs"}`
	if out := e.scrape(); mustValue(t, out, up) != 1 {
		t.Fatal("not up after a good sweep")
	}
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	var out string
	for range 20 {
		e.clock.Advance(5 * time.Minute)
		out = e.scrape()
		if !strings.Contains(out, up) {
			t.Fatal("up series missing during the storm")
		}
		if mustValue(t, out, up) != 0 {
			t.Fatal("up stays 1 while every refresh fails")
		}
	}
	// 100 minutes in: younger than max_age (3h), so the last data is served.
	if e.count("mintlify_page_views_total") != 20 {
		t.Fatal("cached data dropped before max_age")
	}
	e.clock.Advance(2 * time.Hour)
	out = e.scrape()
	if e.count("mintlify_page_views_total") != 0 || e.count("mintlify_site_page_views_total") != 0 {
		t.Fatal("data older than max_age is still exported as current")
	}
	if mustValue(t, out, `mintlify_refresh_failures_total{collector="pageviews",project="docs",reason="server_error"}`) < 5 {
		t.Error("server errors not counted")
	}
	e.expectRecovery(up, "mintlify_page_views_total", 20)
}

func TestRateLimitStorm(t *testing.T) {
	for _, retryAfter := range []string{"", "600"} {
		t.Run("Retry-After="+retryAfter, func(t *testing.T) {
			e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
			up := `mintlify_up{collector="pageviews",project="docs"}`
			e.scrape()
			e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Status: 429, RetryAfter: retryAfter})
			e.clock.Advance(10 * time.Minute)
			before := e.requests(mockapi.EndpointViews)
			out := e.scrape()
			if e.requests(mockapi.EndpointViews) != before+1 {
				t.Fatal("expected one request to meet the 429")
			}
			if mustValue(t, out, up) != 1 || e.count("mintlify_page_views_total") != 20 {
				t.Fatal("a 429 must not turn up to 0 or drop data younger than max_age")
			}
			backoff := mustValue(t, out, `mintlify_analytics_backoff_seconds{key="acme"}`)
			if retryAfter != "" && backoff != 600 {
				t.Fatalf("backoff %v s, want the Retry-After of 600", backoff)
			}
			if retryAfter == "" && backoff != 60 {
				t.Fatalf("backoff %v s, want 60 (first exponential step)", backoff)
			}
			// Scrapes during the backoff send nothing.
			for range 5 {
				e.clock.Advance(5 * time.Second)
				e.scrape()
			}
			if e.requests(mockapi.EndpointViews) != before+1 {
				t.Fatal("requests sent during the backoff")
			}
			// Past max_age: up 0 and no page series.
			for range 40 {
				e.clock.Advance(5 * time.Minute)
				out = e.scrape()
			}
			if mustValue(t, out, up) != 0 || e.count("mintlify_page_views_total") != 0 {
				t.Fatal("after max_age of 429s, up must be 0 and the page series gone")
			}
			e.expectRecovery(up, "mintlify_page_views_total", 20)
		})
	}
}

func TestUnauthorizedIsNotRetriedSoon(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{
		sites:  map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}},
		getenv: func(string) string { return "mint_revokedkey" },
	})
	out := e.scrape()
	if mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 0 {
		t.Fatal("up is 1 with a refused key")
	}
	for range 60 {
		e.clock.Advance(time.Minute)
		e.scrape()
	}
	if n := e.requests(mockapi.EndpointViews); n != 1 {
		t.Fatalf("%d requests in an hour with a refused key; want 1 (no retry storm)", n)
	}
	// Fixing the key and reloading retries at once.
	cfg, err := config.Parse([]byte(fmt.Sprintf(oneProject, e.api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	e.getenv = func(string) string { return testKey }
	if err := e.exp.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	if out := e.scrape(); mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 1 {
		t.Fatal("a reload with a working key did not refresh at once")
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "401") || !strings.Contains(logs, "expired") {
		t.Errorf("the log does not say what to fix:\n%s", logs)
	}
	if strings.Contains(logs, "mint_revokedkey") {
		t.Error("the key is in the log")
	}
}

func TestDuplicateRowsAcrossPages(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, DuplicateAcrossPages: true})
	out := e.scrape()
	if n := e.count("mintlify_page_views_total"); n != 1200 {
		t.Fatalf("%d page series, want 1200 (each path once)", n)
	}
	if mustValue(t, out, `mintlify_page_views_sweep_duplicate_rows{project="docs",window="month"}`) != 2 {
		t.Fatal("duplicates not counted")
	}
}

func TestFiltersMaxPathsAndVanishingPaths(t *testing.T) {
	e := newEnv(t, docsConfig("", "    exclude_paths: ['-1\\d$']\n    max_paths: 50\n"), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 5, Paths: 120}}})
	out := e.scrape()
	exported := mustValue(t, out, `mintlify_page_views_paths{project="docs",window="month"}`)
	dropped := mustValue(t, out, `mintlify_page_views_paths_dropped{project="docs",window="month"}`)
	if exported != 50 || exported+dropped != 120 {
		t.Fatalf("exported %v dropped %v; want 50 and 70", exported, dropped)
	}
	if strings.Contains(out, `-11"`) || strings.Contains(out, `-15"`) {
		t.Fatal("an excluded path is exported")
	}
	e.api.Server.SetPaths("proj-docs", 10)
	e.clock.Advance(time.Hour)
	e.scrape()
	if n := e.count("mintlify_page_views_total"); n > 20 {
		t.Fatalf("%d series after the site shrank to 10 paths", n)
	}
}

func TestBadPathsAreDroppedNotFatal(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, ExtraRows: []mockapi.Row{
		{Path: "/bad-\xff\xfe", Human: 1, AI: 1, Total: 2},
		{Path: "/" + strings.Repeat("x", 10000), Human: 1, AI: 0, Total: 1},
	}})
	out := e.scrape()
	if mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 1 {
		t.Fatal("odd paths broke the refresh")
	}
	if mustValue(t, out, `mintlify_page_views_paths_dropped{project="docs",window="month"}`) != 1 {
		t.Fatal("the 10 kB path should be dropped (the invalid UTF-8 one is exported escaped)")
	}
}

func TestSiteLargerThanTheBudgetIsTruncatedNotStarved(t *testing.T) {
	t.Parallel() // hours of simulated work; an env shares nothing (see newEnv)
	// 30 000 paths are 120 pages: more than the 90 requests an hour the
	// key allows. The walk stops at 90 pages and says so, instead of being
	// cut off by the budget every time and never producing data.
	e := newEnv(t, docsConfig("", "    max_paths: 0\n"), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 30000}}})
	out := e.scrape()
	if mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 1 {
		t.Fatal("not up")
	}
	if mustValue(t, out, `mintlify_page_views_sweep_truncated{project="docs",window="month"}`) != 1 {
		t.Fatal("truncation not reported")
	}
	if got := mustValue(t, out, `mintlify_page_views_paths{project="docs",window="month"}`); got != 90*250 {
		t.Fatalf("%v paths exported, want %d (90 pages)", got, 90*250)
	}
	if n := e.requests(mockapi.EndpointViews); n != 90 {
		t.Fatalf("%d requests, want 90", n)
	}
}
