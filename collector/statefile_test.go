package collector_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// startAt builds an exporter of oneProject against api with its state at
// path, and returns it or New's error, and its log.
func startAt(t *testing.T, api *mockapi.Running, path string, clock collector.Clock) (*collector.Exporter, *testkit.LockedBuffer, error) {
	t.Helper()
	cfg, err := config.Parse([]byte(fmt.Sprintf(oneProject, api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.LockedBuffer{}
	exp, err := collector.New(cfg, collector.Options{Options: engine.Options{
		Clock:       clock,
		Getenv:      func(k string) string { return map[string]string{testKeyEnv: testKey}[k] },
		Logger:      slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		StoragePath: path,
		RetryBase:   time.Millisecond,
	}})
	if err == nil {
		t.Cleanup(exp.Close)
	}
	return exp, logs, err
}

func testAPI(t *testing.T, clock *manualclock.Clock, paths int) *mockapi.Running {
	t.Helper()
	api, err := mockapi.Start(mockapi.Options{
		Clock:    clock,
		Keys:     []mockapi.KeySpec{{Key: testKey, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: paths}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	return api
}

// TestSaveFailuresSeriesCountsEachFailedSave: while the state file
// cannot be written (something else took its place), every failed save
// is counted in mintlify_exporter_state_save_failures_total. (What the
// engine logs of it is TestFailedSavesAreCountedAndLoggedOnce, in
// internal/engine.)
func TestSaveFailuresSeriesCountsEachFailedSave(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""), envOpts{statePath: state, withAPIM: true,
		sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	e.scrape()
	if got := mustValue(t, e.gather(), `mintlify_exporter_state_save_failures_total{file="state"}`); got != 0 {
		t.Fatalf("%v failed saves counted before any failed", got)
	}
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(state, 0o700); err != nil { // someone else's directory
		t.Fatal(err)
	}
	for range 3 {
		e.clock.Advance(3 * time.Minute)
		e.scrape()
	}
	if got := mustValue(t, e.gather(), `mintlify_exporter_state_save_failures_total{file="state"}`); got < 3 {
		t.Errorf("%v failed saves counted, want one per refresh (3)", got)
	}
}
