package engine

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// Tests of the budget engine: the per-organization scheduler, resumable
// walks, the failure policy and reloads, through View. All run on the
// fake clock; none depends on how fast the machine is.

// Two big projects under one key need more than the hour's budget for a
// refresh (2 × 48 pages against 90). Both must have data all the time, no
// page may be paid twice, and the budget must hold in every hour.
func TestTwoBigProjectsShareTheHour(t *testing.T) {
	t.Parallel() // hours of simulated work; a test engine shares nothing
	cfg := "global:\n  api_url: %s\n  min_refresh_interval: 1m\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n" +
		"  - id: proj-a\n    name: a\n    max_paths: 0\n" +
		"  - id: proj-b\n    name: b\n    max_paths: 0\n"
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{
		"proj-a": {Seed: 1, Paths: 12000}, "proj-b": {Seed: 2, Paths: 12000}}}, Options{})
	for step := range 5 * 12 { // 5 hours, a scrape's refresh every 5 minutes
		e.refresh()
		if step%6 == 0 {
			for _, p := range []string{"a", "b"} {
				if !e.health(t, collector.PageViews, p).Up {
					t.Fatalf("step %d: project %s is down (no data younger than max_age)", step, p)
				}
			}
		}
		e.clock.Advance(5 * time.Minute)
	}
	e.expectWithinBudget(t)
	if n := e.wasted(); n != 0 {
		t.Fatalf("%d pages paid twice", n)
	}
	for _, p := range []string{"a", "b"} {
		if got := e.pathsAccountedFor(t, p); got != 12000 {
			t.Errorf("project %s: %v paths exported or seen moving, want 12000", p, got)
		}
	}
	// The budget is used, not left idle: 5 hours at 90 an hour are 450
	// requests, over 4 refreshes of 96 pages.
	if n := e.requests(mockapi.EndpointViews); n < 400 {
		t.Errorf("only %d requests in 5 hours: the budget sat idle", n)
	}
}

// A site whose walk needs more than an hour (two collectors × 120 pages
// against 90 an hour) is walked over several hours, never starved.
func TestBigSiteIsWalkedOverSeveralHours(t *testing.T) {
	t.Parallel() // hours of simulated work; a test engine shares nothing
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 6h\n",
		"    max_paths: 0\n    collectors: [pageviews, visitors]\n"),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 3, Paths: 30000}}}, Options{})
	e.refreshEvery(5*time.Minute, 12) // the first hour
	walk, w := e.monthWalk(t, "docs")
	if remaining(w) == 0 {
		// Pages are read in order of due time; with 90 requests the
		// first walk (120 pages) cannot be done yet.
		t.Fatal("the first walk claims to be done within the first hour")
	}
	if complete(w) {
		t.Fatal("a walk in progress is shown as a complete one")
	}
	if !e.health(t, collector.PageViews, "docs").Up || len(walk.Rows) == 0 {
		t.Fatal("the pages paid for are not shown while the walk goes on")
	}
	e.refreshEvery(5*time.Minute, 4*12) // 4 hours more: the walk needs some 3
	e.expectWithinBudget(t)
	if n := e.wasted(); n != 0 {
		t.Fatalf("%d pages paid twice", n)
	}
	for _, c := range []string{collector.PageViews, collector.Visitors} {
		if !e.health(t, c, "docs").Up {
			t.Errorf("%s is down after 5 hours", c)
		}
	}
	if got := e.pathsAccountedFor(t, "docs"); got != 30000 {
		t.Errorf("%v paths exported or seen moving, want 30000", got)
	}
	if h := e.health(t, collector.Visitors, "docs"); h.LastSuccess.IsZero() {
		t.Error("the visitors walk never completed: starved")
	}
}

// A persistent 500 for an hour costs at most ten analytics requests per
// key, whatever the number of collectors (every kind of the table is
// on), and the first refresh after the upstream heals brings the data
// back.
func TestOutageCostsLittle(t *testing.T) {
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 5s\n",
		"    windows: [24h, 7d]\n    collectors: ["+strings.Join(collector.Names(), ", ")+"]\n"),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 100}}}, Options{})
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	e.refreshEvery(15*time.Second, 240) // one hour of scrapes every 15 s
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint != mockapi.EndpointGetJob }); n > 10 {
		t.Fatalf("%d analytics requests in an hour of outage, want at most 10", n)
	}
	e.api.Server.ClearFaults()
	e.refreshEvery(time.Minute, 70) // the breaker is at most an hour open
	for _, k := range collector.All {
		if !e.health(t, k.Name, "docs").Up {
			t.Errorf("%s did not recover", k.Name)
		}
	}
	e.expectWithinBudget(t)
}

// An upstream whose pages past the end repeat the first one with hasMore
// true costs one request more than the real pages, not the hour.
func TestRepeatingPagesCostOneExtra(t *testing.T) {
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 1000}}}, Options{})
	e.api.Server.SetFault(mockapi.Fault{RepeatPages: true})
	e.refresh()
	if n := e.requests(mockapi.EndpointViews); n != 4+1 {
		t.Fatalf("%d requests for 4 real pages, want 5", n)
	}
	walk, _ := e.monthWalk(t, "docs")
	if !walk.Repeated || len(walk.Rows) != 1000 || !e.health(t, collector.PageViews, "docs").Up {
		t.Fatal("the repeat is not reported, or the real rows are not shown")
	}
}

// The ledger belongs to the key, not to its name: renaming the key in the
// config keeps what was spent this hour.
func TestKeyRenameKeepsSpending(t *testing.T) {
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}}, Options{})
	e.refresh()
	used := e.key(t, "acme").Used
	if used == 0 {
		t.Fatal("nothing spent")
	}
	e.apply(t, strings.Replace(oneProject, "name: acme", "name: acme2", 1))
	if got := e.key(t, "acme2").Used; got != used {
		t.Fatalf("after a rename the key has spent %v, want %v", got, used)
	}
}

// A hostile upstream that sends new paths for ever, in pages of the size
// asked for or far above it, costs bounded memory: pages above the limit
// are refused, and a walk keeps only what can be exported (max_paths, the
// most viewed), whatever it reads. The bound asserted is generous; the
// figure measured is in BENCHMARKS.md.
func TestEndlessUpstreamMemoryIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    int
		wantUp  bool
		maxHeap uint64
	}{
		{"pages of the limit", 250, true, 96 << 20},
		{"pages of 150 000 rows", 150000, false, 96 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 12h\n", ""),
				mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 1000}}}, Options{})
			e.api.Server.SetFault(mockapi.Fault{EndlessRows: tc.rows})
			e.refreshEvery(10*time.Minute, 5*6) // 5 hours
			runtime.GC()
			runtime.ReadMemStats(&after)
			grown := after.HeapInuse - min(before.HeapInuse, after.HeapInuse)
			t.Logf("heap in use grew by %.1f MiB", float64(grown)/(1<<20))
			if grown > tc.maxHeap {
				t.Fatalf("heap grew by %d MiB, bound %d MiB", grown>>20, tc.maxHeap>>20)
			}
			if got := e.health(t, collector.PageViews, "docs").Up; got != tc.wantUp {
				t.Fatalf("up = %v, want %v", got, tc.wantUp)
			}
			if tc.wantUp {
				if n := e.requests(mockapi.EndpointViews); n < 400 {
					t.Fatalf("only %d pages read: the walk did not go on for ever as meant", n)
				}
				if walk, _ := e.monthWalk(t, "docs"); len(walk.Rows) > 5000 {
					t.Fatalf("%v paths kept, max_paths is 5000", len(walk.Rows))
				}
			}
			e.expectWithinBudget(t)
		})
	}
}

// The first refresh failing says there is nothing cached yet, not that
// cached data is being served.
func TestFirstFailureSaysNothingIsCached(t *testing.T) {
	logs := &testkit.LockedBuffer{}
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}},
		Options{Logger: bufLogger(logs)})
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	e.refresh()
	if s := logs.String(); !strings.Contains(s, "no data cached yet") || strings.Contains(s, "serving cached data") {
		t.Fatalf("first failure logged as:\n%s", s)
	}
	e.api.Server.ClearFaults()
	e.clock.Advance(time.Hour)
	e.refresh()
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	e.clock.Advance(time.Hour)
	e.refresh()
	if !strings.Contains(logs.String(), "serving cached data") {
		t.Fatal("a failure after a success does not say cached data is served")
	}
}
