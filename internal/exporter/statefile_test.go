package exporter_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

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
