package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestViewWithoutPrometheus: the engine alone, with no collector, refreshes
// and tells what it did: View shows the units' health and data (the month
// walk's rows, the searches' payload), the key's budget and the job
// poller; every request to the API reaches OnRequest, and the state
// files' writes reach OnSave.
func TestViewWithoutPrometheus(t *testing.T) {
	cfg := "global:\n  api_url: %s\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    collectors: [pageviews, searches]\n"
	var mu sync.Mutex
	requests := 0
	saves := map[string]int{}
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 300}}},
		Options{
			StoragePath: t.TempDir() + "/state.json",
			OnRequest: func(string, int, time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				requests++
			},
			OnSave: func(file string, err error, _ time.Time) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("write of %s failed: %v", file, err)
				}
				saves[file]++
			},
		})
	v := e.View()
	for _, u := range v.Units {
		if h := u.Health(); h.Up || !h.LastSuccess.IsZero() || u.Fresh() {
			t.Errorf("%s before any refresh: %+v, fresh %v", u.Collector().Name, h, u.Fresh())
		}
	}
	e.refresh()

	v = e.View()
	if len(v.Units) != 2 || len(v.Jobs) != 1 || len(v.Keys()) != 1 {
		t.Fatalf("%d units, %d job pollers, %d keys; want 2, 1, 1", len(v.Units), len(v.Jobs), len(v.Keys()))
	}
	made := e.api.Server.CountRequests(nil)
	mu.Lock()
	if requests != made || made == 0 {
		t.Errorf("OnRequest told of %d requests, the API answered %d", requests, made)
	}
	if saves["state"] == 0 || saves["ledger"] == 0 {
		t.Errorf("writes told: %v, want the state file's and the ledger's", saves)
	}
	mu.Unlock()
	if k := v.Keys()[0]; k.Name != "acme" || k.Used != made || k.Limit <= 0 || k.Backoff != 0 {
		t.Errorf("key %+v, want acme with %d requests used", k, made)
	}
	for _, u := range v.Units {
		h := u.Health()
		if !h.Up || !h.LastSuccess.Equal(e.clock.Now()) || h.Project != "docs" || h.Collector != u.Collector().Name || !u.Fresh() {
			t.Errorf("%s after a refresh: %+v", u.Collector().Name, h)
		}
		var month *Window
		u.Windows(func(w Window) {
			if w.Month {
				month = &w
			}
		})
		if month == nil {
			t.Fatalf("%s: no month window", u.Collector().Name)
		}
		switch u.Collector().Name {
		case collector.PageViews:
			if walk := shownWalk(*month); walk == nil || !complete(*month) || len(walk.Rows) != 300 || remaining(*month) != 0 {
				t.Errorf("page views' month: %+v", month)
			}
		case collector.Searches:
			if month.Payload == nil || month.Range == nil || month.DataTime.IsZero() {
				t.Errorf("searches' month: %+v", month)
			}
		}
		built := 0
		for range 2 {
			u.Memo(func() any { built++; return built })
		}
		if built != 1 {
			t.Errorf("%s: Memo built %d times for one version of the data", u.Collector().Name, built)
		}
	}
	if h := v.Jobs[0].Health(); h.Collector != "agent_jobs" || !h.Up {
		t.Errorf("job poller: %+v", h)
	}
}
