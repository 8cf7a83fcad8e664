package collector_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
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
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""), envOpts{statePath: state, withAPIM: true,
		sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	for range 3 {
		e.scrape()
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
	logs := e.logs.String()
	if n := strings.Count(logs, "moved aside and a fresh one written"); n != 1 || !strings.Contains(logs, "counts as spent for an hour") {
		t.Errorf("%d warnings of the replacement, want one saying what the budget does:\n%s", n, logs)
	}
	e.clock.Advance(40 * time.Minute)
	e.scrape()
	if n := e.requests(mockapi.EndpointViews); n == 0 {
		t.Error("no analytics request an hour after the ledger was replaced")
	}
	if got := mustValue(t, e.gather(), `mintlify_exporter_state_save_failures_total{file="ledger"}`); got != 0 {
		t.Errorf("%v failed ledger saves after the replacement", got)
	}
	w := budget.New(10, e.clock)
	if _, err := l.Take(t.Context(), "fp", "backfill", w, e.clock.Now()); err != nil {
		t.Errorf("the backfill cannot share the new ledger: %v", err)
	}
	if aside, _ := filepath.Glob(l.Path() + ".corrupt-*"); len(aside) != 1 {
		t.Errorf("moved aside again: %v", aside)
	}
}

// TestDamagedStateRecordIsFetchedAgain (#36 case 7): a state file whose
// month walk holds counts no API answer could (negative, 1e308) is not
// exported as it is after a restart: the window is dropped with one
// warning and fetched again, and /metrics shows what the API serves.
func TestDamagedStateRecordIsFetchedAgain(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, oneProject, envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	want := pageViewLines(e.scrape())
	if want == "" {
		t.Fatal("no page views exported")
	}
	e.exp.Close()
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	data := st["units"].(map[string]any)["proj-docs/pageviews"].(map[string]any)["windows"].(map[string]any)["month"].(map[string]any)["data"].(map[string]any)
	data["totals"].(map[string]any)["total"] = 1e308
	for _, r := range data["rows"].([]any) {
		r.(map[string]any)["human"] = -100
	}
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.restart()
	if got := pageViewLines(e.scrape()); got != want {
		t.Errorf("after a restart on the damaged state file, /metrics shows:\n%s\nwant what the API serves:\n%s", got, want)
	}
	if n := strings.Count(e.logs.String(), "failed its checks and was dropped"); n != 1 {
		t.Errorf("%d warnings of a dropped record, want 1:\n%s", n, e.logs.String())
	}
}

// pageViewLines are the sample lines of the page view families in out.
func pageViewLines(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "mintlify_page_views_total{") || strings.HasPrefix(l, "mintlify_site_page_views_total{") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// TestWronglyTypedFieldDropsOnlyItsRecord (#36 case 7): one field of the
// wrong type in the assistant's window drops that window alone: after a
// restart the page views are served from the state file without a
// request, and the assistant is fetched again.
func TestWronglyTypedFieldDropsOnlyItsRecord(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_age: 3h\n", "    collectors: [pageviews, assistant]\n"),
		envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	want := pageViewLines(e.scrape())
	e.exp.Close()
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st["units"].(map[string]any)["proj-docs/assistant"].(map[string]any)["windows"].(map[string]any)["month"].(map[string]any)["hint"] = "two"
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e.api.Server.ResetRequests()
	e.restart()
	out := e.scrape()
	if got := pageViewLines(out); got != want {
		t.Errorf("page views after the restart:\n%s\nwant:\n%s", got, want)
	}
	if n := e.requests(mockapi.EndpointViews); n != 0 {
		t.Errorf("%d page views requests after the restart: the undamaged unit was dropped with the damaged one", n)
	}
	if n := e.requests(mockapi.EndpointCallerStats); n == 0 {
		t.Error("the assistant's dropped window was not fetched again")
	}
	if n := strings.Count(e.logs.String(), "failed its checks and was dropped"); n != 1 {
		t.Errorf("%d warnings of a dropped record, want 1:\n%s", n, e.logs.String())
	}
}
