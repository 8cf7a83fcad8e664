package collector

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

// TestShareLedger: another writer counts the exporter's requests as
// foreign, records its own beside them, keeps the units and other keys
// as they were, and leaves a file that is not a state file alone.
func TestShareLedger(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "sub", "state.json")
	unit := json.RawMessage(`{"health":{},"round":"0001-01-01T00:00:00Z","windows":{}}`)
	st := &stateFile{Kind: stateKind, Version: stateVersion, Saved: now,
		Orgs: map[string]orgSnapshot{
			"fp1": {Requests: []time.Time{now.Add(-10 * time.Minute), now.Add(-5 * time.Minute), now.Add(-2 * time.Hour)}},
			"fp2": {Requests: []time.Time{now.Add(-time.Minute)}},
		},
		Units: map[string]json.RawMessage{"p/pageviews": unit}}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := writeState(path, st); err != nil {
		t.Fatal(err)
	}
	w := budget.New(3, &fixedClock{now})
	var took []bool
	for range 2 {
		if err := ShareLedger(path, "fp1", "backfill", w, now, func() { took = append(took, w.TryTake()) }); err != nil {
			t.Fatal(err)
		}
	}
	if len(took) != 2 || !took[0] || took[1] {
		t.Errorf("takes %v, want one (2 of 3 spent by the exporter in the hour)", took)
	}
	got, err := readState(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Orgs["fp1"].Others["backfill"]); n != 1 {
		t.Errorf("backfill's requests in the file: %d, want 1", n)
	}
	if len(got.Orgs["fp1"].Requests) != 3 || len(got.Orgs["fp2"].Requests) != 1 || got.units[unitID{"p", "pageviews"}] == nil {
		t.Errorf("the exporter's entries were not kept: %+v", got.Orgs)
	}
	if foreign := foreignTimes(got, "fp1", ExporterWriter); len(foreign) != 1 {
		t.Errorf("the exporter sees %d foreign requests, want the backfill's 1", len(foreign))
	}
	w2 := budget.New(3, &fixedClock{now})
	if err := LedgerUsage(path, "fp1", "backfill", w2); err != nil || len(w2.Times()) != 1 || w2.Used() != 3 {
		t.Errorf("LedgerUsage: %v, %d own times (want 1), %d used (want 3)", err, len(w2.Times()), w2.Used())
	}

	other := filepath.Join(t.TempDir(), "not-state.json")
	if err := os.WriteFile(other, []byte(`{"kind":"something else"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err = ShareLedger(other, "fp1", "backfill", w, now, func() { t.Error("fn ran on a foreign file") })
	if err == nil || !strings.Contains(err.Error(), "not a state file") {
		t.Errorf("foreign file: %v", err)
	}
	if b, _ := os.ReadFile(other); string(b) != `{"kind":"something else"}` {
		t.Errorf("a foreign file was rewritten: %s", b)
	}
}
