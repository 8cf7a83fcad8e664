package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// TestChargingWritesOnlyTheLedger: with 20 000 paths cached (a state file
// of about a megabyte, 16 times the bound below), reserving requests for a
// refresh rewrites the ledger, a few kilobytes, and not the state file: at
// most 64 KiB are written per charged request.
func TestChargingWritesOnlyTheLedger(t *testing.T) {
	t.Parallel() // its own engine, API and files; it waits on real deadlines or walks long
	if testing.Short() {
		t.Skip("a 20 000-path site")
	}
	state := filepath.Join(t.TempDir(), "state.json")
	cfg := "global:\n  api_url: %s\n  min_refresh_interval: 1m\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 10000\n    reserve: 0\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    max_paths: 0\n"
	e := newTestEngine(t, cfg, mockapi.Options{AnalyticsBudgetPerHour: -1,
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 20000}}}, Options{StoragePath: state})
	e.refresh()
	fi, err := os.Stat(state)
	if err != nil || fi.Size() < 16*64<<10 {
		t.Fatalf("the state file should hold the 20 000 paths, a megabyte: %v (%d bytes)", err, fi.Size())
	}
	l := statefiles.LedgerFor(state)
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

// stateWrites counts the writes of the data cache (OnSave "state").
type stateWrites struct {
	mu sync.Mutex
	n  int
}

func (w *stateWrites) observe(file string, err error, _ time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if file == "state" && err == nil {
		w.n++
	}
}

func (w *stateWrites) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// savedWalk is the rows of the month window of proj-docs/pageviews in the
// state file at path: the complete walk's, or the walk in progress's.
func savedWalk(t *testing.T, path string) (rows int, complete bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Units map[string]struct {
			Windows map[string]struct {
				Payload struct {
					Data, Walk *struct {
						Rows []json.RawMessage `json:"rows"`
					}
				} `json:"payload"`
			} `json:"windows"`
		} `json:"units"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	w := st.Units["proj-docs/pageviews"].Windows["month"].Payload
	switch {
	case w.Data != nil:
		return len(w.Data.Rows), true
	case w.Walk != nil:
		return len(w.Walk.Rows), false
	}
	return 0, false
}

// walkEngine is an engine of one project of 10 000 paths (a first walk of
// 40 pages, 8 a grant) whose key allows budget requests an hour, with its
// state file and the count of its writes.
func walkEngine(t *testing.T, budget int) (e *testEngine, state string, writes *stateWrites) {
	t.Helper()
	state = filepath.Join(t.TempDir(), "state.json")
	cfg := "global:\n  api_url: %s\n  min_refresh_interval: 1m\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: " + strconv.Itoa(budget) + "\n    reserve: 0\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    max_paths: 0\n"
	writes = &stateWrites{}
	e = newTestEngine(t, cfg, mockapi.Options{AnalyticsBudgetPerHour: -1,
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10000}}}, Options{StoragePath: state, OnSave: writes.observe})
	return e, state, writes
}

// TestGrowingWalkIsNotRewrittenEveryRun: a first walk of 40 pages runs on
// grants of 8 (five runs of the scheduler at the same moment): the state
// file is written after the first run and when the refresh ends, not after
// each run, and holds the whole walk.
func TestGrowingWalkIsNotRewrittenEveryRun(t *testing.T) {
	e, state, writes := walkEngine(t, 1000)
	e.refresh()
	if n := e.api.Server.CountRequests(nil); n != 40 {
		t.Fatalf("%d requests, want the 40 pages", n)
	}
	if n := writes.count(); n != 2 {
		t.Errorf("the state file was written %d times during the walk's five runs, want 2 (the first run's, the round's end)", n)
	}
	if rows, complete := savedWalk(t, state); rows != 10000 || !complete {
		t.Errorf("the state file holds %d rows (complete %v), want the whole walk of 10000", rows, complete)
	}
}

// TestWalkProgressIsSavedWhenTheRefreshPauses: a walk that the hour's
// budget stops halfway is on disk as soon as the scheduler stops, with
// the pages it read, though its refresh has not ended; a minute later the
// next run writes again.
func TestWalkProgressIsSavedWhenTheRefreshPauses(t *testing.T) {
	e, state, writes := walkEngine(t, 12)
	e.refresh()
	if n := e.api.Server.CountRequests(nil); n != 12 {
		t.Fatalf("%d requests, want the hour's 12", n)
	}
	if rows, complete := savedWalk(t, state); rows != 12*250 || complete {
		t.Errorf("the state file holds %d rows (complete %v), want the 3000 of the walk in progress", rows, complete)
	}
	first := writes.count()
	// An hour on, the walk resumes, runs twice (8 pages, then 4), and
	// pauses again: written after its first run (a minute since the last
	// write) and when it pauses, not after each run.
	e.clock.Advance(time.Hour + time.Minute)
	e.refresh()
	if n := e.api.Server.CountRequests(nil); n != 24 {
		t.Fatalf("%d requests, want 24", n)
	}
	if rows, _ := savedWalk(t, state); rows <= 12*250 || rows > 24*250 {
		t.Errorf("the state file holds %d rows, want those of the 24 pages read (rows that moved between pages count once)", rows)
	}
	if n := writes.count() - first; n != 2 {
		t.Errorf("%d writes of the state file for two runs and a pause, want 2", n)
	}
}

// TestFailedPageKeepsTheWalksProgressTime: a first walk the budget paused
// shows its pages as of the run that read them; a later run whose first
// request fails reads nothing, so the unit's last success stays the
// paused run's, and the walk goes on from its page next time.
func TestFailedPageKeepsTheWalksProgressTime(t *testing.T) {
	e, _, _ := walkEngine(t, 12)
	e.refresh()
	paused := e.clock.Now()
	if h := e.health(t, collector.PageViews, "docs"); !h.Partial || !h.LastSuccess.Equal(paused) {
		t.Fatalf("after the paused run: %+v, want partial data of %v", h, paused)
	}
	e.clock.Advance(time.Hour + time.Minute)
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Status: 500})
	e.refresh()
	if h := e.health(t, collector.PageViews, "docs"); !h.Partial || !h.LastSuccess.Equal(paused) || len(h.FailCounts) == 0 {
		t.Errorf("after a failed run: %+v, want the paused run's partial data of %v and a failure", h, paused)
	}
	walk, _ := e.monthWalk(t, "docs")
	if walk.Requests != 12 {
		t.Errorf("the walk read %d pages, want the paused run's 12", walk.Requests)
	}
}
