package exporter_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// oneCollector is the docs project with only the named collector.
func oneCollector(name string) string {
	return docsConfig("", "    windows: [24h]\n    collectors: ["+name+"]\n")
}

// TestGoldenPerCollector: each kind of the table, alone on a project,
// exports what its golden file holds (golden_NAME.prom), some series of
// its own families among it, and no other kind's series. A kind added to
// the table runs here too; its golden file is written once, on purpose,
// with -update -run 'TestGoldenPerCollector/NAME'.
func TestGoldenPerCollector(t *testing.T) {
	for _, k := range collector.All {
		t.Run(k.Name, func(t *testing.T) {
			cfg := strings.Replace(oneCollector(k.Name), "windows: [24h]", "windows: [7d]", 1)
			e := newEnv(t, cfg, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 21, Paths: 12}}})
			e.scrape()
			own := 0
			for _, f := range k.Families {
				own += e.count(f.Name)
			}
			if own == 0 {
				t.Fatalf("no series of %s's families: the golden file would prove little", k.Name)
			}
			for _, other := range collector.All {
				if other.Name == k.Name {
					continue
				}
				for _, f := range other.Families {
					if e.count(f.Name) != 0 && !slices.ContainsFunc(k.Families, func(g spec.Family) bool { return g.Name == f.Name }) {
						t.Fatalf("%s series although the project lists only %s", f.Name, k.Name)
					}
				}
			}
			compareGolden(t, "golden_"+k.Name+".prom", e)
		})
	}
}

func TestVisitorsTotalIsItsOwnSeries(t *testing.T) {
	site := mockapi.Site{Seed: 3, Paths: 40}
	e := newEnv(t, oneCollector("visitors"), envOpts{sites: map[string]mockapi.Site{"proj-docs": site}})
	out := e.scrape()
	to := epoch.Truncate(time.Minute)
	totals, _ := site.Visitors(to.Add(-24*time.Hour), to)
	if got := mustValue(t, out, `mintlify_site_unique_visitors{project="docs",window="24h"}`); got != float64(totals.Total) {
		t.Fatalf("unique visitors %v, want %d", got, totals.Total)
	}
	if strings.Contains(out, `mintlify_site_visitors{project="docs",traffic="other"`) || strings.Contains(out, `traffic="total"`) {
		t.Fatal("the de-duplicated total must not appear as a traffic value")
	}
}

// TestAllCollectorsThreeProjectsOneHourWithinBudget: every kind of the
// table on, three projects, two hours of scrapes every 5 s: no 429, no
// hour over the key's budget, every kind's endpoint asked and every kind
// up, and page views refreshed as often as its weight's share of the
// budget allows.
func TestAllCollectorsThreeProjectsOneHourWithinBudget(t *testing.T) {
	t.Parallel() // hours of simulated work; an env shares nothing (see newEnv)
	sites := map[string]mockapi.Site{
		"p1": {Seed: 1, Paths: 2000, FeedbackPerDay: 5}, "p2": {Seed: 2, Paths: 2000, FeedbackPerDay: 5}, "p3": {Seed: 3, Paths: 2000, FeedbackPerDay: 5},
	}
	all := "[" + strings.Join(collector.Names(), ", ") + "]"
	e := newEnv(t, `
global:
  api_url: %s
keys:
  - name: acme
    api_key_env: TEST_MINTLIFY_KEY
projects:
  - {id: p1, collectors: `+all+`}
  - {id: p2, collectors: `+all+`}
  - {id: p3, collectors: `+all+`}
`, envOpts{sites: sites})
	e.refreshEvery(5*time.Second, 2*720)
	out := e.gather()
	e.expectWithinBudget()
	weights := 0.0
	for _, k := range collector.All {
		weights += k.Weight
		asked := e.api.Server.CountRequests(func(r mockapi.Request) bool { return strings.HasSuffix(r.Path, "/p1/"+k.Endpoint) })
		if asked == 0 {
			t.Errorf("collector %s never asked its endpoint %s", k.Name, k.Endpoint)
		}
		if mustValue(t, out, `mintlify_up{collector="`+k.Name+`",project="p1"}`) != 1 {
			t.Errorf("%s not up:\n%s", k.Name, grepLines(out, k.Name))
		}
	}
	// With every kind on, page views gets its weight's share of the 90
	// requests an hour: 3 projects × 8 pages = 24 requests a refresh.
	pv, _ := collector.Lookup(collector.PageViews)
	want := 3600 * 24 * weights / (90 * pv.Weight)
	if got := mustValue(t, out, `mintlify_refresh_interval_seconds{collector="pageviews",project="p1"}`); got != want {
		t.Errorf("pageviews interval %v s, want %v (3600 × 24 / (90 × %v/%v))", got, want, pv.Weight, weights)
	}
}

func TestSearchTermsAreSanitisedAndCapped(t *testing.T) {
	e := newEnv(t, oneCollector("searches"), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 8, Paths: 50}}})
	out := e.scrape()
	n := e.count("mintlify_search_hits")
	if n == 0 || n > 10 {
		t.Fatalf("%d search terms exported, want 1..10 (search_top_n)", n)
	}
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, `query="`); i >= 0 && strings.HasPrefix(line, "mintlify_search") {
			q := line[i+7:]
			q = q[:strings.Index(q, `"`)]
			if len([]rune(q)) > 64 || q != strings.ToLower(q) || strings.TrimSpace(q) != q {
				t.Errorf("query label %q not sanitised", q)
			}
		}
	}
}

func grepLines(out, sub string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, sub) && strings.Contains(l, "p1") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
