package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// goodState is a state file of proj-docs's page views (the month and 7d
// windows, each a complete walk) and assistant, written by an engine,
// decoded as plain JSON for the tests to damage.
func goodState(t *testing.T) map[string]any {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state.json")
	cfg := "global:\n  api_url: %s\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    windows: [7d]\n    collectors: [pageviews, assistant]\n"
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}}, Options{StoragePath: state})
	e.refresh()
	e.Close()
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// obj is the JSON object at path (keys, or indexes of arrays) in v.
func obj(t *testing.T, v any, path ...any) map[string]any {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			v = v.(map[string]any)[p]
		case int:
			v = v.([]any)[p]
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("no object at %v", path)
	}
	return m
}

// clone is a deep copy of a JSON value.
func clone(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var c any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStateRecordsAreCheckedOneByOne (#36 case 7): the state file is read
// as an API answer is. A unit or window holding what no refresh writes (a
// negative or absurd count, a path twice in a complete walk, a negative
// back-off, a failure reason that is no reason, a wrongly typed field, a
// payload its kind cannot decode) is dropped with one warning each; the
// records beside it, the same unit's other window included, are served.
func TestStateRecordsAreCheckedOneByOne(t *testing.T) {
	st := goodState(t)
	units := obj(t, st, "units")
	views, assistant := units["proj-docs/pageviews"], units["proj-docs/assistant"]
	if views == nil || assistant == nil || len(obj(t, views, "windows")) != 2 {
		t.Fatalf("the engine saved %v, want page views (two windows) and assistant", slices.Collect(maps.Keys(units)))
	}
	// Each case is a copy of a good unit, under its own project id, damaged.
	damaged := map[string]struct {
		collector string
		damage    func(u map[string]any)
		window    bool // only the month window is dropped, not the unit
	}{
		"negative": {"pageviews", func(u map[string]any) { obj(t, u, "windows", "month", "payload", "data", "totals")["total"] = -100 }, true},
		"huge":     {"pageviews", func(u map[string]any) { obj(t, u, "windows", "month", "payload", "data", "rows", 0)["human"] = 1e308 }, true},
		"twice": {"pageviews", func(u map[string]any) {
			r := obj(t, u, "windows", "month", "payload", "data")
			r["rows"] = append(r["rows"].([]any), r["rows"].([]any)[0])
		}, true},
		"walkkind": {"pageviews", func(u map[string]any) { obj(t, u, "windows", "month", "payload", "data")["kind"] = "visitors" }, true},
		"walkthere": {"assistant", func(u map[string]any) {
			obj(t, u, "windows", "month")["data"] = obj(t, units["proj-docs/pageviews"], "windows", "month", "payload", "data")
		}, true},
		"typed":     {"pageviews", func(u map[string]any) { obj(t, u, "windows", "month")["hint"] = "many" }, true},
		"payload":   {"assistant", func(u map[string]any) { obj(t, u, "windows", "month")["payload"] = "not an object" }, true},
		"backoff":   {"pageviews", func(u map[string]any) { obj(t, u, "health")["failures"] = -3 }, false},
		"reason":    {"pageviews", func(u map[string]any) { obj(t, u, "health")["fail_counts"] = map[string]any{"\x1b[31mred\a": 1} }, false},
		"healthtyp": {"pageviews", func(u map[string]any) { obj(t, u, "health")["failed"] = "yes" }, false},
		"floorfamily": {"pageviews", func(u map[string]any) {
			obj(t, u, "windows", "month")["floor"] = map[string]any{"month": "2026-11-01T00:00:00Z",
				"series": []any{map[string]any{"family": "mintlify_page_visitors", "a": "/", "b": "human", "value": 1}}}
		}, true},
		"floorhuge": {"pageviews", func(u map[string]any) {
			obj(t, u, "windows", "month")["floor"] = map[string]any{"month": "2026-11-01T00:00:00Z",
				"series": []any{map[string]any{"family": "mintlify_site_page_views", "a": "human", "value": 1e300}}}
		}, true},
	}
	for name, c := range damaged {
		u := clone(t, units["proj-docs/"+c.collector]).(map[string]any)
		c.damage(u)
		units["bad-"+name+"/"+c.collector] = u
	}
	units["no-slash"] = views
	units["proj-docs/nosuchcollector"] = views
	units["proj-typed/pageviews"] = []any{"a unit of the wrong type"}

	path := filepath.Join(t.TempDir(), "state.json")
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	files, err := statefiles.Open(path, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer files.Close()
	got, dropped, err := readState(files, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), collector.All) // the harness clock's start
	if err != nil {
		t.Fatalf("one bad record dropped the whole file: %v", err)
	}
	if want := len(damaged) + 3; len(dropped) != want {
		t.Errorf("%d records dropped, want %d: %v", len(dropped), want, dropped)
	}
	for _, id := range []unitID{{"proj-docs", "pageviews"}, {"proj-docs", "assistant"}} {
		if u := got.units[id]; u == nil || len(u.windows) != len(obj(t, units[id.String()], "windows")) {
			t.Errorf("the good unit %s was not kept whole: %+v", id, u)
		}
	}
	for name, c := range damaged {
		u := got.units[unitID{"bad-" + name, c.collector}]
		switch {
		case !c.window && u != nil:
			t.Errorf("%s: the unit was kept", name)
		case c.window && u == nil:
			t.Errorf("%s: the whole unit was dropped, want only its month window", name)
		case c.window && u.windows["month"] != nil:
			t.Errorf("%s: the damaged month window was kept", name)
		case c.window && c.collector == "pageviews" && u.windows["7d=168h0m0s"] == nil:
			t.Errorf("%s: the unit's good 7d window was dropped", name)
		}
	}
	for _, err := range dropped {
		if strings.ContainsAny(err.Error(), "\x1b\a") {
			t.Errorf("a drop's message holds raw control characters: %q", err)
		}
	}

	// Started on it, an engine logs one warning a record and serves the rest.
	var logs bytes.Buffer
	cfg := "global:\n  api_url: %s\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    windows: [7d]\n    collectors: [pageviews, assistant]\n"
	files.Close()
	newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}},
		Options{StoragePath: path, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if n := strings.Count(logs.String(), "failed its checks and was dropped"); n != maxDropWarnings {
		t.Errorf("%d warnings of dropped records, want %d (one a record, the first %d):\n%s", n, maxDropWarnings, maxDropWarnings, logs.String())
	}
	if more := fmt.Sprintf("more=%d", len(dropped)-maxDropWarnings); !strings.Contains(logs.String(), more) {
		t.Errorf("no warning counting the records dropped beyond the first %d:\n%s", maxDropWarnings, logs.String())
	}
}
