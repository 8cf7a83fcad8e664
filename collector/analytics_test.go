package collector_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// oneCollector is the docs project with only the named collector.
func oneCollector(name string) string {
	return docsConfig("", "    windows: [24h]\n    collectors: ["+name+"]\n")
}

func TestGoldenPerCollector(t *testing.T) {
	for _, name := range []string{"visitors", "feedback", "searches", "assistant"} {
		t.Run(name, func(t *testing.T) {
			cfg := strings.Replace(oneCollector(name), "windows: [24h]", "windows: [7d]", 1)
			e := newEnv(t, cfg, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 21, Paths: 12}}})
			got := e.scrape()
			if strings.Contains(got, "mintlify_page_views{") {
				t.Fatal("pageviews ran although the project lists only " + name)
			}
			data := map[string]string{"visitors": "mintlify_page_visitors", "feedback": "mintlify_page_feedback", "searches": "mintlify_search_hits", "assistant": "mintlify_assistant_queries"}[name]
			if e.count(data) == 0 {
				t.Fatalf("no %s series: the golden file would prove little", data)
			}
			compareGolden(t, "golden_"+name+".prom", e)
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

func TestAllCollectorsThreeProjectsOneHourWithinBudget(t *testing.T) {
	t.Parallel() // hours of simulated work; an env shares nothing (see newEnv)
	sites := map[string]mockapi.Site{
		"p1": {Seed: 1, Paths: 2000}, "p2": {Seed: 2, Paths: 2000}, "p3": {Seed: 3, Paths: 2000},
	}
	all := `[pageviews, visitors, feedback, searches, assistant]`
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
	for _, ep := range []string{mockapi.EndpointViews, mockapi.EndpointVisitors, mockapi.EndpointFeedback, mockapi.EndpointSearches, mockapi.EndpointCallerStats} {
		if e.requests(ep) == 0 {
			t.Errorf("collector for %s never ran", ep)
		}
	}
	for _, c := range []string{"pageviews", "visitors", "feedback", "searches", "assistant"} {
		if mustValue(t, out, `mintlify_up{collector="`+c+`",project="p1"}`) != 1 {
			t.Errorf("%s not up", c)
		}
	}
	// With all five on, pageviews gets 4/9 of the budget instead of all
	// of it: 3 projects × 8 pages = 24 requests a round at 40 an hour.
	if got := mustValue(t, out, `mintlify_refresh_interval_seconds{collector="pageviews",project="p1"}`); got != 2160 {
		t.Errorf("pageviews interval %v s, want 2160 (3600 × 24 / (90 × 4/9))", got)
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
