package serve

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/internal/leakcheck"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(stateGuard{toolcheck.Wrap(m, "mintlify_exporter")})
}

// stateGuard points the default --storage.path ($STATE_DIRECTORY) at a
// temporary folder for the whole run, so no test can write a state file
// into the source tree, and fails the run if any test did write one
// there: a test that starts the exporter must give it its own
// --storage.path, or tests would share a ledger and data.
type stateGuard struct{ m interface{ Run() int } }

func (g stateGuard) Run() int {
	dir, err := os.MkdirTemp("", "mintlify-state-guard-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("STATE_DIRECTORY", dir)
	code := g.m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		fmt.Fprintln(os.Stderr, "FAIL: a test started the exporter with the default --storage.path; give it one in t.TempDir()")
		return 1
	}
	return code
}

// TestFaultMatrix drives every upstream fault through the real HTTP
// handler: each scrape must answer 200 with an exposition that parses (and
// that promtool accepts), up must say what the fault means, the key must
// stay out of the debug log, and the first good refresh after the fault
// must bring everything back. Every verdict is on a scrape taken after the
// refreshes finished (scrapeSettled), never on how far a refresh got
// before the scrape's deadline: reading 6 × 10 MiB of oversize bodies
// takes seconds under the race detector on a loaded machine.
func TestFaultMatrix(t *testing.T) {
	const up = `mintlify_up{collector="pageviews",project="docs"}`
	for _, tc := range []struct {
		name  string
		fault mockapi.Fault
		// wantUp is up while the fault lasts (data younger than max_age);
		// after max_age every fault gives 0.
		wantUp float64
		// check runs on the exposition while the fault lasts.
		check func(t *testing.T, body string)
	}{
		{name: "500", fault: mockapi.Fault{Status: 500}},
		{name: "502 html", fault: mockapi.Fault{Status: 502, Body: mockapi.HTML}},
		{name: "429 with Retry-After", fault: mockapi.Fault{Status: 429, RetryAfter: "120"}, wantUp: 1},
		{name: "429 without Retry-After", fault: mockapi.Fault{Status: 429}, wantUp: 1},
		{name: "401", fault: mockapi.Fault{Status: 401}},
		{name: "403", fault: mockapi.Fault{Status: 403}},
		{name: "malformed json", fault: mockapi.Fault{Body: mockapi.MalformedJSON}},
		{name: "truncated body", fault: mockapi.Fault{Body: mockapi.Truncated}},
		{name: "oversize body", fault: mockapi.Fault{Body: mockapi.Oversize}},
		{name: "missing totals", fault: mockapi.Fault{Body: mockapi.MissingField, Field: "totals"}},
		{name: "missing hasMore", fault: mockapi.Fault{Body: mockapi.MissingField, Field: "hasMore"}},
		{name: "duplicate rows across pages", fault: mockapi.Fault{DuplicateAcrossPages: true}, wantUp: 1},
		{name: "endless hasMore", fault: mockapi.Fault{EndlessHasMore: true}, wantUp: 1},
		{name: "odd paths", wantUp: 1, fault: mockapi.Fault{ExtraRows: []mockapi.Row{
			{Path: "/bad-\xff\xfe-utf8", Human: 1, AI: 1, Total: 2},
			{Path: "/" + strings.Repeat("long", 2500), Human: 3, AI: 0, Total: 3},
		}}, check: func(t *testing.T, body string) {
			if !strings.Contains(body, `mintlify_page_views_paths_dropped{project="docs",window="24h"} 1`) {
				t.Error("the 10 kB path is not counted as dropped")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := manualclock.New(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
			ts, srv, api, _, logs := testServerClock(t, func(o *mockapi.Options) {
				// Two pages of 250: the paging faults have a page to cross.
				o.Projects["proj-docs"] = mockapi.Site{Seed: 1, Paths: 300}
			}, clock)
			scrape := func() string {
				t.Helper()
				body := scrapeSettled(t, ts, srv, map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "5"})
				parser := expfmt.NewTextParser(model.UTF8Validation)
				if _, err := parser.TextToMetricFamilies(strings.NewReader(body)); err != nil {
					t.Fatalf("exposition does not parse: %v", err)
				}
				return body
			}
			valueOf := func(body, series string) float64 {
				t.Helper()
				for _, l := range strings.Split(body, "\n") {
					if v, ok := strings.CutPrefix(l, series+" "); ok {
						return map[string]float64{"0": 0, "1": 1}[v]
					}
				}
				t.Fatalf("%s missing", series)
				return -1
			}
			if valueOf(scrape(), up) != 1 {
				t.Fatal("not up before the fault")
			}
			api.Server.SetFault(tc.fault)
			clock.Advance(time.Hour)
			faultBody := scrape()
			if got := valueOf(faultBody, up); got != tc.wantUp {
				t.Fatalf("up = %v while the fault lasts, want %v", got, tc.wantUp)
			}
			if tc.check != nil {
				tc.check(t, faultBody)
			}
			clock.Advance(4 * time.Hour) // past max_age (3h)
			body := scrape()
			if tc.wantUp == 0 && valueOf(body, up) != 0 {
				t.Fatal("up is 1 after max_age of failures")
			}
			api.Server.ClearFaults()
			clock.Advance(2 * time.Hour) // past any back-off
			body = scrape()
			if valueOf(body, up) != 1 || !strings.Contains(body, `mintlify_page_views_total{`) {
				t.Fatal("no recovery on the first good refresh")
			}
			if strings.Contains(logs.String(), mainTestKey) || strings.Contains(body, mainTestKey) {
				t.Fatal("the API key leaked into the debug log or /metrics")
			}
			// Last, so that a missing promtool cannot hide the checks above.
			checkPromtool(t, faultBody)
		})
	}
}
