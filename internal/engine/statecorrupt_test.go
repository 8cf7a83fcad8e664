package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestCorruptLedgerIsReplaced: a corrupt ledger at start-up is moved
// aside once and a fresh one written, with one warning saying so; for the
// hour after, no analytics request is made (what the lost ledger recorded
// is unknown), then refreshes resume and every save works; the backfill
// shares the new ledger.
func TestCorruptLedgerIsReplaced(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	l := statefiles.LedgerFor(state)
	if err := os.WriteFile(l.Path(), []byte("garbage{"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &testkit.LockedBuffer{}
	saves := &saveOutcomes{}
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}},
		Options{StoragePath: state, Logger: bufLogger(logs), OnSave: saves.observe})
	for range 3 {
		e.refresh()
		e.clock.Advance(10 * time.Minute)
	}
	if n := e.requests(mockapi.EndpointViews); n != 0 {
		t.Errorf("%d analytics requests in the hour after the ledger was lost, want none", n)
	}
	aside, _ := filepath.Glob(l.Path() + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("moved aside: %v, want one file", aside)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != "garbage{" {
		t.Errorf("the corrupt ledger was not kept as it was: %q", b)
	}
	if n := strings.Count(logs.String(), "moved aside and a fresh one written"); n != 1 || !strings.Contains(logs.String(), "counts as spent for an hour") {
		t.Errorf("%d warnings of the replacement, want one saying what the budget does:\n%s", n, logs)
	}
	e.clock.Advance(40 * time.Minute)
	e.refresh()
	if n := e.requests(mockapi.EndpointViews); n == 0 {
		t.Error("no analytics request an hour after the ledger was replaced")
	}
	if failed, _ := saves.counts("ledger"); failed != 0 {
		t.Errorf("%v failed ledger saves after the replacement", failed)
	}
	w := budget.New(10, e.clock)
	if _, err := l.Take(t.Context(), "fp", "backfill", w, e.clock.Now()); err != nil {
		t.Errorf("the backfill cannot share the new ledger: %v", err)
	}
	if aside, _ := filepath.Glob(l.Path() + ".corrupt-*"); len(aside) != 1 {
		t.Errorf("moved aside again: %v", aside)
	}
}

// shownMonth is what the page views' month window of docs shows: its
// rows and site totals.
func (e *testEngine) shownMonth(t *testing.T) ([]mintlify.PageViewRow, mintlify.Counts) {
	t.Helper()
	w, _ := e.monthWalk(t, "docs")
	return w.Rows, w.Totals
}

// editState rewrites the state file at path with edit applied to its
// JSON.
func editState(t *testing.T, path string, edit func(units map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	edit(st["units"].(map[string]any))
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedStateRecordIsFetchedAgain (#36 case 7): a state file whose
// month walk holds counts no API answer could (negative, 1e308) is not
// served as it is after a restart: the window is dropped with one
// warning and fetched again, and View shows what the API serves.
func TestDamagedStateRecordIsFetchedAgain(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	logs := &testkit.LockedBuffer{}
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}},
		Options{StoragePath: state, Logger: bufLogger(logs)})
	e.refresh()
	rows, totals := e.shownMonth(t)
	if len(rows) == 0 {
		t.Fatal("no page views shown")
	}
	e.Close()
	editState(t, state, func(units map[string]any) {
		data := units["proj-docs/pageviews"].(map[string]any)["windows"].(map[string]any)["month"].(map[string]any)["payload"].(map[string]any)["data"].(map[string]any)
		data["totals"].(map[string]any)["total"] = 1e308
		for _, r := range data["rows"].([]any) {
			r.(map[string]any)["human"] = -100
		}
	})
	e = e.restart(t, oneProject)
	e.refresh()
	if gotRows, gotTotals := e.shownMonth(t); !reflect.DeepEqual(gotRows, rows) || gotTotals != totals {
		t.Errorf("after a restart on the damaged state file, View shows\n%v %v\nwant what the API serves:\n%v %v", gotRows, gotTotals, rows, totals)
	}
	if n := strings.Count(logs.String(), "failed its checks and was dropped"); n != 1 {
		t.Errorf("%d warnings of a dropped record, want 1:\n%s", n, logs)
	}
}

// TestWronglyTypedFieldDropsOnlyItsRecord (#36 case 7): one field of the
// wrong type in the assistant's window drops that window alone: after a
// restart the page views are served from the state file without a
// request, and the assistant is fetched again.
func TestWronglyTypedFieldDropsOnlyItsRecord(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	logs := &testkit.LockedBuffer{}
	cfg := docsConfig("  min_refresh_interval: 1m\n  max_age: 3h\n", "    collectors: [pageviews, assistant]\n")
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}},
		Options{StoragePath: state, Logger: bufLogger(logs)})
	e.refresh()
	rows, totals := e.shownMonth(t)
	e.Close()
	editState(t, state, func(units map[string]any) {
		units["proj-docs/assistant"].(map[string]any)["windows"].(map[string]any)["month"].(map[string]any)["hint"] = "two"
	})
	e.api.Server.ResetRequests()
	e = e.restart(t, cfg)
	e.refresh()
	if gotRows, gotTotals := e.shownMonth(t); !reflect.DeepEqual(gotRows, rows) || gotTotals != totals {
		t.Errorf("page views after the restart:\n%v %v\nwant:\n%v %v", gotRows, gotTotals, rows, totals)
	}
	if !e.health(t, collector.PageViews, "docs").Up {
		t.Error("the page views are not up after the restart")
	}
	if n := e.requests(mockapi.EndpointViews); n != 0 {
		t.Errorf("%d page views requests after the restart: the undamaged unit was dropped with the damaged one", n)
	}
	if n := e.requests(mockapi.EndpointCallerStats); n == 0 {
		t.Error("the assistant's dropped window was not fetched again")
	}
	if n := strings.Count(logs.String(), "failed its checks and was dropped"); n != 1 {
		t.Errorf("%d warnings of a dropped record, want 1:\n%s", n, logs)
	}
}
