package exporter_test

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

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
	testkit.SeedJobs(e.api.Server, epoch)
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

// TestRequestSeriesOfASweepCutShort: mintlify_api_requests_total
// counts a request answered under its status and one cut short (an
// upstream hanging until Close ends the sweep) as code="error". (What
// the engine does with the hanging upstream is
// TestSlowUpstreamDoesNotHoldTheScrape, in internal/engine.)
func TestRequestSeriesOfASweepCutShort(t *testing.T) {
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 3h\n  request_timeout: 1h\n", ""),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}, withAPIM: true})
	e.scrape() // good data first
	arrived := make(chan string, 1)
	e.api.Server.SetFault(mockapi.Fault{Latency: time.Hour, Arrived: arrived})
	e.clock.Advance(2 * time.Hour)
	// Refresh starts the due refresh whatever its context; a cancelled one only ends its wait at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.exp.Refresh(ctx)
	select {
	case <-arrived:
	case <-testkit.HangGuard(t).Done():
		t.Fatal("the refresh never sent its views request")
	}
	e.exp.Close() // cancels the hung sweep; leakcheck in TestMain checks it ended
	out := e.gather()
	if got := mustValue(t, out, `mintlify_api_requests_total{code="200",endpoint="views"}`); got != 1 {
		t.Errorf("%v views requests answered, want 1", got)
	}
	if got := mustValue(t, out, `mintlify_api_requests_total{code="error",endpoint="views"}`); got != 1 {
		t.Errorf("%v views requests cut short, want 1", got)
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
