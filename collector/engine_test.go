package collector_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// Tests of the budget engine: the per-organization scheduler, resumable
// walks, the failure policy, the state file and reloads. All run on the
// fake clock; none depends on how fast the machine is.

// wasted counts analytics requests that asked for a page already paid for
// in the same walk: same endpoint, project, date range and offset. The
// month window asks for the same range all day, so one range is walked
// many times: a walk ends when it has read every offset the range ever
// had, and only a repeat before that is waste. A walk that resumes
// instead of starting again wastes nothing.
func (e *env) wasted() int {
	type walkKey struct{ endpoint, project, rng string }
	reqs := e.api.Server.Requests()
	offsetOf := func(r mockapi.Request) (walkKey, int) {
		q, _ := url.ParseQuery(r.Query)
		off, _ := strconv.Atoi(q.Get("offset"))
		q.Del("offset")
		return walkKey{r.Endpoint, r.ProjectID, q.Encode()}, off
	}
	last := map[walkKey]int{}
	for _, r := range reqs {
		if r.Endpoint == mockapi.EndpointGetJob || r.Status != 200 {
			continue
		}
		k, off := offsetOf(r)
		last[k] = max(last[k], off)
	}
	seen := map[walkKey]map[int]bool{}
	n := 0
	for _, r := range reqs {
		if r.Endpoint == mockapi.EndpointGetJob || r.Status != 200 {
			continue
		}
		k, off := offsetOf(r)
		if seen[k] == nil {
			seen[k] = map[int]bool{}
		}
		if seen[k][off] {
			complete := true
			for o := range last[k] + 1 {
				if o%250 == 0 && !seen[k][o] { // every test walk reads 250 rows a page
					complete = false
					break
				}
			}
			if !complete {
				n++
				continue
			}
			seen[k] = map[int]bool{} // the next walk of the same range
		}
		seen[k][off] = true
	}
	return n
}

// restart closes the exporter and starts a new one from the same config
// and options (and so the same state file), as a process restart does.
func (e *env) restart() {
	e.t.Helper()
	e.exp.Close()
	exp, err := collector.New(e.cfg, e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(exp.Close)
	e.reg = prometheus.NewPedanticRegistry()
	e.reg.MustRegister(exp)
	e.exp = exp
}

// pathsAccountedFor is the paths project's last complete month walk
// exported plus the rows it read twice. A walk the budget spreads over
// hours reads the upstream's ranking as it changes: a path that moves to
// a page not read yet is read twice (counted once, in
// mintlify_page_views_sweep_duplicate_rows), and for each such move one
// path moves the other way, to a page already read, and is missed until
// the next walk. The two add up to the site's paths. (Shared by weight
// since #36 case 4, a big site's walk is split where its kind's share of
// the hour ends rather than where the whole hour does.)
func (e *env) pathsAccountedFor(t *testing.T, project string) float64 {
	t.Helper()
	out := e.gatherOnly("mintlify_page_views_paths", "mintlify_page_views_sweep_duplicate_rows")
	return mustValue(t, out, `mintlify_page_views_paths{project="`+project+`",window="month"}`) +
		mustValue(t, out, `mintlify_page_views_sweep_duplicate_rows{project="`+project+`",window="month"}`)
}

// Two big projects under one key need more than the hour's budget for a
// round (2 × 48 pages against 90). Both must have data all the time, no
// page may be paid twice, and the budget must hold in every hour.
func TestTwoBigProjectsShareTheHour(t *testing.T) {
	t.Parallel() // hours of simulated work; an env shares nothing (see newEnv)
	cfg := "global:\n  api_url: %s\n  min_refresh_interval: 1m\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n" +
		"  - id: proj-a\n    name: a\n    max_paths: 0\n" +
		"  - id: proj-b\n    name: b\n    max_paths: 0\n"
	e := newEnv(t, cfg, envOpts{sites: map[string]mockapi.Site{
		"proj-a": {Seed: 1, Paths: 12000}, "proj-b": {Seed: 2, Paths: 12000}}})
	for step := range 8 * 12 { // 8 hours, a scrape's refresh every 5 minutes
		e.exp.Refresh(context.Background())
		e.exp.Wait()
		if step%6 == 0 {
			out := e.gatherOnly("mintlify_up")
			for _, p := range []string{"a", "b"} {
				if v := mustValue(t, out, `mintlify_up{collector="pageviews",project="`+p+`"}`); v != 1 {
					t.Fatalf("step %d: project %s is down (no data younger than max_age)", step, p)
				}
			}
		}
		e.clock.Advance(5 * time.Minute)
	}
	e.expectWithinBudget()
	if n := e.wasted(); n != 0 {
		t.Fatalf("%d pages paid twice", n)
	}
	for _, p := range []string{"a", "b"} {
		if got := e.pathsAccountedFor(t, p); got != 12000 {
			t.Errorf("project %s: %v paths exported or seen moving, want 12000", p, got)
		}
	}
	// The budget is used, not left idle: 8 hours at 90 an hour, less the
	// first hour's slack, is well over 5 rounds of 96 pages.
	if n := e.requests(mockapi.EndpointViews); n < 500 {
		t.Errorf("only %d requests in 8 hours: the budget sat idle", n)
	}
}

// A site whose walk needs more than an hour (two collectors × 120 pages
// against 90 an hour) is walked over several hours, never starved.
func TestBigSiteIsWalkedOverSeveralHours(t *testing.T) {
	t.Parallel() // hours of simulated work; an env shares nothing (see newEnv)
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 6h\n",
		"    max_paths: 0\n    collectors: [pageviews, visitors]\n"),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 3, Paths: 30000}}})
	e.refreshEvery(5*time.Minute, 12) // the first hour
	out := e.gatherOnly("mintlify_page_views_walk_pages_remaining", "mintlify_page_views_sweep_truncated", "mintlify_up")
	if got := mustValue(t, out, `mintlify_page_views_walk_pages_remaining{project="docs",window="month"}`); got == 0 {
		// Pages are read in order of due time; with 90 requests the
		// first walk (120 pages) cannot be done yet.
		t.Fatal("the first walk claims to be done within the first hour")
	}
	if mustValue(t, out, `mintlify_page_views_sweep_truncated{project="docs",window="month"}`) != 1 {
		t.Fatal("a walk in progress is not marked truncated")
	}
	if mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 1 || e.count("mintlify_page_views_total") == 0 {
		t.Fatal("the pages paid for are not exported while the walk goes on")
	}
	e.refreshEvery(5*time.Minute, 7*12)
	e.expectWithinBudget()
	if n := e.wasted(); n != 0 {
		t.Fatalf("%d pages paid twice", n)
	}
	out = e.gatherOnly("mintlify_up", "mintlify_last_refresh_success_timestamp_seconds")
	for _, c := range []string{"pageviews", "visitors"} {
		if mustValue(t, out, `mintlify_up{collector="`+c+`",project="docs"}`) != 1 {
			t.Errorf("%s is down after 8 hours", c)
		}
	}
	if got := e.pathsAccountedFor(t, "docs"); got != 30000 {
		t.Errorf("%v paths exported or seen moving, want 30000", got)
	}
	if v, ok := value(out, `mintlify_last_refresh_success_timestamp_seconds{collector="visitors",project="docs"}`); !ok || v == 0 {
		t.Error("the visitors walk never completed: starved")
	}
}

// A persistent 500 for an hour costs at most ten analytics requests per
// key, whatever the number of collectors, and the first refresh after the
// upstream heals brings the data back.
func TestOutageCostsLittle(t *testing.T) {
	e := newEnv(t, docsConfig("  min_refresh_interval: 5s\n",
		"    windows: [24h, 7d]\n    collectors: [pageviews, visitors, feedback, searches, assistant]\n"),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 100}}})
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	e.refreshEvery(15*time.Second, 240) // one hour of scrapes every 15 s
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint != mockapi.EndpointGetJob }); n > 10 {
		t.Fatalf("%d analytics requests in an hour of outage, want at most 10", n)
	}
	e.api.Server.ClearFaults()
	e.refreshEvery(time.Minute, 70) // the breaker is at most an hour open
	out := e.gather()
	for _, c := range []string{"pageviews", "visitors", "feedback", "searches", "assistant"} {
		if mustValue(t, out, `mintlify_up{collector="`+c+`",project="docs"}`) != 1 {
			t.Errorf("%s did not recover", c)
		}
	}
	e.expectWithinBudget()
}

// An upstream whose pages past the end repeat the first one with hasMore
// true costs one request more than the real pages, not the hour.
func TestRepeatingPagesCostOneExtra(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 1000}}})
	e.api.Server.SetFault(mockapi.Fault{RepeatPages: true})
	out := e.scrape()
	if n := e.requests(mockapi.EndpointViews); n != 4+1 {
		t.Fatalf("%d requests for 4 real pages, want 5", n)
	}
	if mustValue(t, out, `mintlify_page_views_walk_repeated{project="docs",window="month"}`) != 1 ||
		mustValue(t, out, `mintlify_page_views_paths{project="docs",window="month"}`) != 1000 ||
		mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`) != 1 {
		t.Fatal("the repeat is not reported, or the real rows are not exported")
	}
}

// Three restarts within an hour continue the ledger and serve the saved
// data at once: no extra request, no 429, the last refresh time from
// before the restart.
func TestRestartCostsNothing(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("  min_refresh_interval: 30m\n", ""), envOpts{statePath: state,
		sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	first := e.scrape()
	pages := e.count("mintlify_page_views_total")
	before := e.api.Server.CountRequests(nil)
	last := mustValue(t, first, `mintlify_last_refresh_success_timestamp_seconds{collector="pageviews",project="docs"}`)
	used := mustValue(t, first, `mintlify_analytics_budget_used_requests{key="acme"}`)
	for i := range 3 {
		e.clock.Advance(5 * time.Minute)
		e.restart()
		out := e.gather() // before any refresh: served from the state file
		if got := mustValue(t, out, `mintlify_last_refresh_success_timestamp_seconds{collector="pageviews",project="docs"}`); got != last {
			t.Fatalf("restart %d: last refresh %v, want %v from before the restart", i, got, last)
		}
		if e.count("mintlify_page_views_total") != pages || pages == 0 {
			t.Fatalf("restart %d: the saved page series are not served at once", i)
		}
		if got := mustValue(t, out, `mintlify_analytics_budget_used_requests{key="acme"}`); got != used {
			t.Fatalf("restart %d: budget used %v, want %v carried over", i, got, used)
		}
		e.scrape() // not due yet: must not refresh
	}
	if n := e.api.Server.CountRequests(nil) - before; n != 0 {
		t.Fatalf("3 restarts cost %d requests, want 0", n)
	}
}

// The ledger belongs to the key, not to its name: renaming the key in the
// config keeps what was spent this hour.
func TestKeyRenameKeepsSpending(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	used := mustValue(t, e.scrape(), `mintlify_analytics_budget_used_requests{key="acme"}`)
	if used == 0 {
		t.Fatal("nothing spent")
	}
	e.reload(strings.Replace(oneProject, "name: acme", "name: acme2", 1))
	if got := mustValue(t, e.gather(), `mintlify_analytics_budget_used_requests{key="acme2"}`); got != used {
		t.Fatalf("after a rename the key has spent %v, want %v", got, used)
	}
}

// reload applies yamlCfg (with %s for the API URL), failing the test if
// it is refused.
func (e *env) reload(yamlCfg string) {
	e.t.Helper()
	if err := e.apply(yamlCfg); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) apply(yamlCfg string) error {
	cfg, err := config.Parse([]byte(fmt.Sprintf(yamlCfg, e.api.URL())))
	if err != nil {
		e.t.Fatal(err)
	}
	return e.exp.Apply(cfg)
}

// A refused reload changes nothing: not the budget, not the data.
func TestRefusedReloadChangesNothing(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	before := e.scrape()
	// A lower budget for acme, then a second key that is refused (an
	// assistant key, not an admin key): the whole reload is refused.
	bad := strings.Replace(oneProject, "api_key_env: TEST_MINTLIFY_KEY",
		"api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 30\n  - name: other\n    api_key_env: OTHER_KEY", 1)
	bad = strings.Replace(bad, "name: docs\n", "name: docs\n    key: acme\n", 1)
	e.getenv = func(k string) string {
		switch k {
		case testKeyEnv:
			return testKey
		case "OTHER_KEY":
			return "mint_dsc_notanadminkey"
		}
		return ""
	}
	if err := e.apply(bad); err == nil {
		t.Fatal("a config with a refused key was accepted")
	}
	if after := e.gather(); after != before {
		b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
		i := 0
		for i < min(len(a), len(b)) && a[i] == b[i] {
			i++
		}
		t.Fatalf("a refused reload changed /metrics from line %d:\nbefore: %q\nafter:  %q", i+1, b[min(i, len(b)-1)], a[min(i, len(a)-1)])
	}
}

// A reload while a walk is paused (or in flight) lands the walk in the
// new config: it resumes, and no page is paid twice.
func TestReloadMidWalkLandsTheWalk(t *testing.T) {
	cfg := docsConfig("  min_refresh_interval: 1m\n", "    max_paths: 0\n")
	small := strings.Replace(cfg, "api_key_env: TEST_MINTLIFY_KEY", "api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 40", 1)
	e := newEnv(t, small, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 12000}}})
	e.scrape() // 36 of 48 pages: the walk pauses
	out := e.gather()
	if mustValue(t, out, `mintlify_page_views_walk_pages_remaining{project="docs",window="month"}`) == 0 {
		t.Fatal("the walk is not paused mid-way")
	}
	e.reload(strings.Replace(small, "max_age: 3h", "max_age: 4h", 1) + "    exclude_paths: ['^/nothing$']\n")
	// In flight across a reload: start the refresh, reload, then wait.
	e.clock.Advance(time.Hour)
	e.exp.Refresh(context.Background())
	e.reload(small)
	e.exp.Wait()
	out = e.gather()
	// The month's range reaches up to now, so rows move between pages
	// while the walk waits an hour: a row that moved to a page not read
	// yet comes twice, and pushes one row back onto a page already read.
	paths := mustValue(t, out, `mintlify_page_views_paths{project="docs",window="month"}`)
	dups := mustValue(t, out, `mintlify_page_views_sweep_duplicate_rows{project="docs",window="month"}`)
	if paths+dups != 12000 || mustValue(t, out, `mintlify_page_views_walk_pages_remaining{project="docs",window="month"}`) != 0 {
		t.Fatalf("%v paths and %v duplicate rows after the reloads, want the whole walk's 12000 rows", paths, dups)
	}
	if n := e.wasted(); n != 0 {
		t.Fatalf("%d pages paid twice across the reloads", n)
	}
	if n := e.requests(mockapi.EndpointViews); n != 48 {
		t.Fatalf("%d requests, want the 48 pages once", n)
	}
}

// A reload that gives a project name another id drops the old project's
// data, for every collector, and fetches the new one's.
func TestIDChangeUnderSameNameRefetches(t *testing.T) {
	cfg := docsConfig("  min_refresh_interval: 1m\n", "    collectors: [pageviews, feedback, searches, assistant]\n")
	e := newEnv(t, cfg, envOpts{sites: map[string]mockapi.Site{
		"proj-docs": {Seed: 1, Paths: 10}, "proj-new": {Seed: 2, Paths: 3}}})
	e.scrape()
	oldPages := e.count("mintlify_page_views_total")
	e.reload(strings.Replace(cfg, "id: proj-docs", "id: proj-new", 1))
	if e.count("mintlify_page_views_total") != 0 || e.count("mintlify_page_feedback") != 0 || e.count("mintlify_search_hits") != 0 || e.count("mintlify_assistant_queries") != 0 {
		t.Fatal("the old project's data is still exported under the new id")
	}
	e.scrape()
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.ProjectID == "proj-new" }); n == 0 {
		t.Fatal("the new project id was never fetched")
	}
	if got := e.count("mintlify_page_views_total"); got != 2*3 || oldPages != 2*10 {
		t.Fatalf("%d page series (%d before), want the new project's 3 paths × 2", got, oldPages)
	}
}

// A corrupt, foreign or future-version state file is ignored: the exporter
// starts afresh instead of failing, and the file is kept aside as
// STATE.corrupt-<time> (#36 case 7).
func TestBadStateFileIsIgnored(t *testing.T) {
	for name, content := range map[string]string{
		"corrupt": "{not json",
		"foreign": `{"kind":"something else","version":1}`,
		"future":  `{"kind":"mintlify_exporter state","version":99}`,
		"garbage": strings.Repeat("\x00", 100),
		"cut":     `{"kind":"mintlify_exporter state","version":3,"units":{"proj-docs/pageviews":{"health":{"fail`,
		"array":   `[{"kind":"mintlify_exporter state","version":3}]`,
		"units":   `{"kind":"mintlify_exporter state","version":3,"units":["proj-docs/pageviews"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(state, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, oneProject, envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
			if mustValue(t, e.scrape(), `mintlify_up{collector="pageviews",project="docs"}`) != 1 {
				t.Fatal("not up after ignoring the state file")
			}
			if !strings.Contains(e.logs.String(), "ignoring the state file") {
				t.Fatal("the bad state file was not logged")
			}
			aside, _ := filepath.Glob(state + ".corrupt-*")
			if len(aside) != 1 {
				t.Fatalf("%d files moved aside, want the bad one: %v", len(aside), aside)
			}
			if b, err := os.ReadFile(aside[0]); err != nil || string(b) != content {
				t.Errorf("%s holds %q (%v), want the bad file's content", aside[0], b, err)
			}
			e.exp.Close()
			b, err := os.ReadFile(state)
			if err != nil || !strings.Contains(string(b), `"kind":"mintlify_exporter state"`) {
				t.Fatalf("no good state written over the bad one: %v", err)
			}
		})
	}
}

// The key never reaches the state file: only its fingerprint.
func TestStateFileHoldsNoKey(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, oneProject, envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
	e.scrape()
	e.exp.Close()
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), testKey) || strings.Contains(string(b), url.QueryEscape(testKey)) || strings.Contains(string(b), `"acme"`) {
		t.Fatal("the state file holds the key or its name")
	}
}

// A render replaced while a scrape still writes it stays intact: renders
// are never changed, only replaced.
func TestRenderOutlivesItsReaders(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	render := exposition.NewRenderer(e.exp.Data(), e.exp.DataKey)
	e.scrape()
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	first, err := render.Rendered(format, true)
	if err != nil || len(first) == 0 {
		t.Fatalf("no render: %v", err)
	}
	var copies [][]byte
	for _, f := range first {
		copies = append(copies, bytes.Clone(f.Text), bytes.Clone(f.Gzip))
	}
	again, _ := render.Rendered(format, true)
	if &again[0].Text[0] != &first[0].Text[0] {
		t.Fatal("rendered again although nothing changed")
	}
	e.clock.Advance(4 * time.Hour) // the data goes stale, then a refresh lands
	e.scrape()
	second, _ := render.Rendered(format, true)
	if len(second) > 0 && &second[0].Text[0] == &first[0].Text[0] {
		t.Fatal("not rendered again after the data changed")
	}
	for i, f := range first {
		if !bytes.Equal(f.Text, copies[2*i]) || !bytes.Equal(f.Gzip, copies[2*i+1]) {
			t.Fatalf("family %s changed under its reader", f.Name)
		}
	}
}

// The rendered series are kept as gzip members; the plain text is made
// from them only when a client asks for it, and is their inflated bytes.
func TestPlainIsMadeOnlyWhenAskedFor(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	render := exposition.NewRenderer(e.exp.Data(), e.exp.DataKey)
	e.scrape()
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	zipped, err := render.Rendered(format, false)
	if err != nil || len(zipped) == 0 {
		t.Fatalf("no render: %v", err)
	}
	for _, f := range zipped {
		if f.Text != nil || len(f.Gzip) == 0 {
			t.Fatalf("family %s: %d plain bytes made for a gzip scrape, %d gzip bytes", f.Name, len(f.Text), len(f.Gzip))
		}
	}
	plain, err := render.Rendered(format, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != len(zipped) {
		t.Fatalf("%d families plain, %d gzip", len(plain), len(zipped))
	}
	for i, f := range plain {
		zr, err := gzip.NewReader(bytes.NewReader(f.Gzip))
		if err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Text) == 0 || !bytes.Equal(f.Text, want) {
			t.Fatalf("family %s: the plain text is not its gzip member inflated", f.Name)
		}
		if zipped[i].Text != nil {
			t.Fatalf("family %s: the list an earlier scrape holds was changed", f.Name)
		}
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
		wantUp  float64
		maxHeap uint64
	}{
		{"pages of the limit", 250, 1, 96 << 20},
		{"pages of 150 000 rows", 150000, 0, 96 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 12h\n", ""),
				envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 1000}}})
			e.api.Server.SetFault(mockapi.Fault{EndlessRows: tc.rows})
			e.refreshEvery(10*time.Minute, 8*6) // 8 hours
			out := e.gather()
			runtime.GC()
			runtime.ReadMemStats(&after)
			grown := after.HeapInuse - min(before.HeapInuse, after.HeapInuse)
			t.Logf("heap in use grew by %.1f MiB", float64(grown)/(1<<20))
			if grown > tc.maxHeap {
				t.Fatalf("heap grew by %d MiB, bound %d MiB", grown>>20, tc.maxHeap>>20)
			}
			if got := mustValue(t, out, `mintlify_up{collector="pageviews",project="docs"}`); got != tc.wantUp {
				t.Fatalf("up = %v, want %v", got, tc.wantUp)
			}
			if tc.wantUp == 1 {
				if n := e.requests(mockapi.EndpointViews); n < 400 {
					t.Fatalf("only %d pages read: the walk did not go on for ever as meant", n)
				}
				if got := mustValue(t, out, `mintlify_page_views_paths{project="docs",window="month"}`); got > 5000 {
					t.Fatalf("%v paths exported, max_paths is 5000", got)
				}
			}
			e.expectWithinBudget()
		})
	}
}

// The first refresh failing says there is nothing cached yet, not that
// cached data is being served.
func TestFirstFailureSaysNothingIsCached(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	e.scrape()
	logs := e.logs.String()
	if !strings.Contains(logs, "no data cached yet") || strings.Contains(logs, "serving cached data") {
		t.Fatalf("first failure logged as:\n%s", logs)
	}
	e.api.Server.ClearFaults()
	e.clock.Advance(time.Hour)
	e.scrape()
	e.api.Server.SetFault(mockapi.Fault{Status: 500})
	e.clock.Advance(time.Hour)
	e.scrape()
	if !strings.Contains(e.logs.String(), "serving cached data") {
		t.Fatal("a failure after a success does not say cached data is served")
	}
}

// A plain (non-gzip) scrape before any data is cached gets an empty
// rendering, not an error: there is no gzip member to inflate.
func TestPlainRenderOfAnEmptyCache(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
	render := exposition.NewRenderer(e.exp.Data(), e.exp.DataKey)
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	for _, plain := range []bool{true, false} {
		fams, err := render.Rendered(format, plain)
		if err != nil {
			t.Fatalf("plain %v: %v", plain, err)
		}
		for _, f := range fams {
			if len(f.Text) != 0 {
				t.Errorf("plain %v: family %s has %d bytes before any refresh", plain, f.Name, len(f.Text))
			}
		}
	}
}
