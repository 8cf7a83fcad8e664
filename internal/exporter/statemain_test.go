package exporter_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestStateFileBeforeFetchPathIsServed: a state file written before page
// views and visitors were fetched collectors (their walks a window's data
// and walk) is served as that code served it, and its walks in progress
// resume where they stopped: the 7d walks read only their missing pages.
func TestStateFileBeforeFetchPathIsServed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pre-fetchpath", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(state, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "global:\n  api_url: %s\n  min_refresh_interval: 1m\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 14\n    reserve: 0\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    max_paths: 0\n    windows: [7d]\n    collectors: [pageviews, visitors, assistant]\n"
	e := newEnv(t, cfg, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 1200}},
		mock: func(o *mockapi.Options) { o.AnalyticsBudgetPerHour = -1 }, statePath: state})
	compareGolden(t, "golden_prefetchpath_loaded.prom", e)
	e.scrape()
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == mockapi.EndpointViews }); n != 2 {
		t.Errorf("%d page views requests, want the 7d walk's 2 missing pages", n)
	}
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == mockapi.EndpointVisitors }); n != 1 {
		t.Errorf("%d visitors requests, want the 7d walk's missing page", n)
	}
	compareGolden(t, "golden_prefetchpath_resumed.prom", e)
}
