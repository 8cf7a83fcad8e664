package serve_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve/servetest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
)

// sumOf adds up the samples of family name for project="docs" in a
// scrape.
func sumOf(scrape, name string) float64 {
	var sum float64
	for _, line := range strings.Split(scrape, "\n") {
		rest, ok := strings.CutPrefix(line, name+"{")
		if !ok || !strings.Contains(rest, `project="docs"`) {
			continue
		}
		v, err := strconv.ParseFloat(rest[strings.LastIndexByte(rest, ' ')+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// TestDemoSiteKeepsBeingRead: the demo's simulated site is read as the
// clock moves, so the README's first query,
// sum by (project, traffic) (increase(mintlify_site_page_views_total[1h])),
// is above zero within five minutes, and over an hour every counter the
// dashboard's rate panels read has grown. The exporter and the simulated
// API share the test's clock, which moves by hand; each scrape waits for
// the refreshes it started.
func TestDemoSiteKeepsBeingRead(t *testing.T) {
	clk := manualclock.New(time.Date(2026, 11, 20, 12, 2, 0, 0, time.UTC))
	ts := servetest.Start(t, []string{"--demo"}, serve.Options{Clock: clk})
	first := servetest.ScrapeSettled(t, ts, nil)
	views := sumOf(first, "mintlify_site_page_views_total")
	if views == 0 {
		t.Fatalf("no page views in the first scrape:\n%s", first)
	}
	var last string
	for _, step := range []time.Duration{5 * time.Minute, 5 * time.Minute, 20 * time.Minute, 30 * time.Minute} {
		clk.Advance(step)
		last = servetest.ScrapeSettled(t, ts, nil)
		now := sumOf(last, "mintlify_site_page_views_total")
		if now <= views {
			t.Fatalf("at %s the docs' page views are %v, %s earlier %v: increase() over them is 0", clk.Now().Format("15:04"), now, step, views)
		}
		views = now
	}
	for _, family := range []string{
		"mintlify_page_views_total", "mintlify_page_feedback_total", "mintlify_searches_total",
		"mintlify_assistant_queries_total", "mintlify_assistant_conversations_total",
	} {
		if before, after := sumOf(first, family), sumOf(last, family); after <= before {
			t.Errorf("%s{project=\"docs\"}: %v at the start, %v an hour later; want it grown", family, before, after)
		}
	}
}
