package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/ledger"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestChargingWritesOnlyTheLedger: with 100 000 paths cached, reserving
// requests for a refresh rewrites the ledger, a few kilobytes, and not the
// state file: at most 64 KiB are written per charged request.
func TestChargingWritesOnlyTheLedger(t *testing.T) {
	if testing.Short() {
		t.Skip("a 100 000-path site")
	}
	state := filepath.Join(t.TempDir(), "state.json")
	cfg := "global:\n  api_url: %s\n  min_refresh_interval: 1m\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 10000\n    reserve: 0\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    max_paths: 0\n"
	e := newTestEngine(t, cfg, mockapi.Options{AnalyticsBudgetPerHour: -1,
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 100000}}}, Options{StoragePath: state})
	e.refresh()
	fi, err := os.Stat(state)
	if err != nil || fi.Size() < 4<<20 {
		t.Fatalf("the state file should hold the 100 000 paths: %v", err)
	}
	l := ledger.For(state)
	before, _ := os.Stat(l.Path())
	// The next charge: the key's budget is reserved under the ledger's
	// lock, before any data changes.
	e.ChargeForTest()
	after, err := os.Stat(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Fatal("the ledger was not rewritten")
	}
	if after.Size() > 64<<10 {
		t.Errorf("the ledger is %d bytes, more than 64 KiB", after.Size())
	}
	if now, _ := os.Stat(state); !os.SameFile(fi, now) || !now.ModTime().Equal(fi.ModTime()) {
		t.Error("charging rewrote the state file")
	}
}
