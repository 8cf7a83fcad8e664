package exporter_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// BenchmarkConversationsMonth runs the conversations collector alone for
// a site of 50 000 conversations a month (70 an hour), on the fake clock,
// from the 28th at 20:00 (27 finished days not walked yet) to 06:00 on
// the 29th, a scrape every 5 minutes, under the default budget (100 an
// hour less the reserve of 10). It reports, for one run:
//
//   - max_requests/hour: the most analytics requests in any one-hour span,
//     and x_budget, that over the 90 the key may spend (≤ 1: within budget);
//   - requests/refresh: the mean requests of a refresh once the month is
//     walked (today's pages, and yesterday's until 02:00), and x_naive,
//     that over the pages of the month to date at the end that a walk of
//     the whole month on every refresh would read (the floor it is
//     measured against);
//   - fill_hours: how long the 27 finished days took to walk at first;
//   - state_KiB: the state file at the end (31 days of counts at most);
//   - heap_KiB: the Go heap in use after a GC at the end, less before the
//     exporter started (the collector's bound: one page's counted rows
//     and the row being decoded while a walk reads, its days' counts
//     after).
func BenchmarkConversationsMonth(b *testing.B) {
	for range b.N {
		runConversationsMonth(b)
	}
}

func runConversationsMonth(b *testing.B) {
	start := time.Date(2026, 11, 28, 20, 0, 0, 0, time.UTC)
	end := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	clock := manualclock.New(start)
	api, err := mockapi.Start(mockapi.Options{
		Clock:    clock,
		Keys:     []mockapi.KeySpec{{Key: testKey, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 300, ConversationsPerHour: 70}},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer api.Close()
	state := filepath.Join(b.TempDir(), "state.json")
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
global: {api_url: %s, min_refresh_interval: 5m}
keys: [{name: acme, api_key_env: TEST_MINTLIFY_KEY}]
projects: [{id: proj-docs, name: docs, collectors: [conversations]}]
`, api.URL())))
	if err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heapBefore := ms.HeapInuse
	exp, err := exporter.New(cfg, exporter.Options{Options: engine.Options{Collectors: collector.All,
		Clock: clock, StoragePath: state,
		Getenv: func(string) string { return testKey },
		Logger: slog.New(slog.DiscardHandler),
	}})
	if err != nil {
		b.Fatal(err)
	}
	var filled time.Time
	var refreshes, after int
	for clock.Now().Before(end) {
		before := api.Server.CountRequests(nil)
		exp.Refresh(context.Background())
		exp.Wait()
		made := api.Server.CountRequests(nil) - before
		switch {
		case filled.IsZero() && made > 0 && monthWalked(api, 27):
			filled = clock.Now()
		case !filled.IsZero() && made > 0:
			refreshes++
			after += made
		}
		clock.Advance(5 * time.Minute)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heap := int64(ms.HeapInuse) - int64(heapBefore)
	exp.Close()
	st, err := os.Stat(state)
	if err != nil {
		b.Fatal(err)
	}
	most := 0
	reqs := api.Server.Requests()
	for i := range reqs {
		n := 0
		for j := i; j < len(reqs) && reqs[j].Time.Sub(reqs[i].Time) < time.Hour; j++ {
			n++
		}
		most = max(most, n)
	}
	if n := api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == 429 }); n != 0 {
		b.Fatalf("%d answers were 429", n)
	}
	if filled.IsZero() || refreshes == 0 {
		b.Fatal("the month was never walked whole, or no refresh after")
	}
	// The floor: a whole-month walk at the end reads the month's
	// conversations so far, a page of mintlify.ConversationsPageSize a
	// day at least (each day is its own walk).
	naive := 0.0
	for d := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC); d.Before(end); d = d.AddDate(0, 0, 1) {
		to := d.AddDate(0, 0, 1)
		if to.After(end) {
			to = end
		}
		n := len(mockapi.Site{Seed: 4, Paths: 300, ConversationsPerHour: 70}.Conversations(d, to))
		naive += float64(max(1, (n+mintlify.ConversationsPageSize-1)/mintlify.ConversationsPageSize))
	}
	perRefresh := float64(after) / float64(refreshes)
	b.ReportMetric(float64(most), "max_requests/hour")
	b.ReportMetric(float64(most)/90, "x_budget")
	b.ReportMetric(perRefresh, "requests/refresh")
	b.ReportMetric(perRefresh/naive, "x_naive")
	b.ReportMetric(filled.Sub(start).Hours(), "fill_hours")
	b.ReportMetric(float64(st.Size())/1024, "state_KiB")
	b.ReportMetric(float64(heap)/1024, "heap_KiB")
}

// monthWalked reports whether each of the first days of the month has
// had a walk's first page asked for.
func monthWalked(api *mockapi.Running, days int) bool {
	seen := map[string]bool{}
	for _, r := range api.Server.Requests() {
		if q, err := url.ParseQuery(r.Query); err == nil && r.Endpoint == mockapi.EndpointConversations {
			seen[q.Get("dateFrom")] = true
		}
	}
	for d := 1; d <= days; d++ {
		if !seen[time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC).Format("2006-01-02")] {
			return false
		}
	}
	return true
}
