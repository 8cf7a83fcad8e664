package exporter_test

import (
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestPathLabelValues: the path label follows mintlify.PathLabel, as the
// backfill's does (TestBackfillPathLabels). An empty path is not exported
// (path="" is no label to Prometheus) and is counted as dropped; /a\xff
// (5 views) and /a\xfe (7) stay two series with their own counts, not one
// /a\uFFFD whose second count is lost; a path written like another once
// escaped (the text `\xff` beside the byte) is one series with both
// counts and counted; NUL and ESC are escaped.
func TestPathLabelValues(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, ExtraRows: []mockapi.Row{
		{Path: "/a\xff", Human: 5, Total: 5},
		{Path: "/a\xfe", Human: 7, Total: 7},
		{Path: "", Human: 3, Total: 3},
		{Path: "/nul\x00x", Human: 1, Total: 1},
		{Path: "/esc\x1b[2J", Human: 1, Total: 1},
		{Path: `/b\xff`, Human: 2, Total: 2},
		{Path: "/b\xff", Human: 4, Total: 4},
	}})
	out := e.scrape()
	for series, want := range map[string]float64{
		`mintlify_page_views_total{path="/a\\xff",project="docs",traffic="human"}`:      5,
		`mintlify_page_views_total{path="/a\\xfe",project="docs",traffic="human"}`:      7,
		`mintlify_page_views_total{path="/b\\xff",project="docs",traffic="human"}`:      6,
		`mintlify_page_views_total{path="/nul\\x00x",project="docs",traffic="human"}`:   1,
		`mintlify_page_views_total{path="/esc\\x1b[2J",project="docs",traffic="human"}`: 1,
		// the empty path and the merged one
		`mintlify_page_views_paths_dropped{project="docs",window="month"}`: 2,
		`mintlify_page_views_paths{project="docs",window="month"}`:         5 + 5,
	} {
		if got := mustValue(t, out, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if strings.Contains(out, `path=""`) || strings.ContainsAny(out, "\x00\x1b\ufffd") {
		t.Errorf("an empty path, a control character or U+FFFD is exported:\n%s", head(out, 80))
	}
}
