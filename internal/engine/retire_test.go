package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// retireConfig is proj-docs with the collectors listed.
func retireConfig(collectors string) string {
	return "global:\n  api_url: %s\n  min_refresh_interval: 1m\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 1000\n    reserve: 0\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    collectors: [" + collectors + "]\n"
}

// apply applies yamlCfg (%s for the simulated API's URL).
func (e *testEngine) apply(t *testing.T, yamlCfg string) {
	t.Helper()
	cfg, err := config.Parse(fmt.Appendf(nil, yamlCfg, e.api.URL()))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(cfg); err != nil {
		t.Fatal(err)
	}
}

// conversationRequests counts the requests of the conversations endpoint.
func (e *testEngine) conversationRequests() int {
	return e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == mockapi.EndpointConversations })
}

// savedUnits are the unit ids in the state file at path.
func savedUnits(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Units map[string]json.RawMessage `json:"units"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for id := range st.Units {
		ids[id] = true
	}
	return ids
}

// TestTurnedOffCollectorKeepsItsDaysForAWeek (#36 case 9): conversations
// turned off by a reload and on again six days later starts from its
// sealed days: it asks for the days since, not the month again. Turned
// off for RetiredKeep, its unit leaves the store and the state file, and
// turned on again it walks the month afresh.
func TestTurnedOffCollectorKeepsItsDaysForAWeek(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newTestEngine(t, retireConfig("pageviews, conversations"), mockapi.Options{AnalyticsBudgetPerHour: -1,
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10, ConversationsPerHour: 10}}}, Options{StoragePath: state})
	e.refresh()
	// The 20th at noon: a walk of each of the month's 20 days so far.
	month := e.conversationRequests()
	if month < 20 {
		t.Fatalf("the first refresh made %d conversations requests, want a walk of each of the month's 20 days at least", month)
	}
	perDay := (month + 19) / 20

	e.apply(t, retireConfig("pageviews"))
	e.clock.Advance(6 * 24 * time.Hour)
	e.refresh()
	if !savedUnits(t, state)["proj-docs/conversations"] {
		t.Error("the state of the collector turned off left the state file at once")
	}
	e.apply(t, retireConfig("pageviews, conversations"))
	e.refresh()
	again := e.conversationRequests() - month
	// The six days since, and the day the first refresh could not seal
	// (the 20th): a walk each, where a month walk would be 26.
	if again == 0 || again > 7*perDay {
		t.Errorf("turned on again after six days: %d conversations requests, want at most the 7 days not sealed, %d a day (the month's 20 days took %d)", again, perDay, month)
	}

	e.apply(t, retireConfig("pageviews"))
	e.clock.Advance(RetiredKeep)
	e.refresh()
	e.Close()
	if ids := savedUnits(t, state); ids["proj-docs/conversations"] || !ids["proj-docs/pageviews"] {
		t.Errorf("after %s turned off, the state file holds %v, want the page views alone", RetiredKeep, ids)
	}
}

// restart closes e and starts an engine of yamlCfg on the same simulated
// API, clock and state file.
func (e *testEngine) restart(t *testing.T, yamlCfg string) *testEngine {
	t.Helper()
	e.Close()
	cfg, err := config.Parse(fmt.Appendf(nil, yamlCfg, e.api.URL()))
	if err != nil {
		t.Fatal(err)
	}
	o := e.opts
	n, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return &testEngine{Engine: n, api: e.api, clock: e.clock}
}

// TestUnitsNoConfigUsesLeaveTheFileAfterAWeek (#36 case 9): a unit of the
// state file that the configuration at start does not use is kept,
// retired, for RetiredKeep across restarts, then leaves the file.
func TestUnitsNoConfigUsesLeaveTheFileAfterAWeek(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newTestEngine(t, retireConfig("pageviews, conversations"), mockapi.Options{AnalyticsBudgetPerHour: -1,
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10, ConversationsPerHour: 10}}}, Options{StoragePath: state})
	e.refresh()
	e = e.restart(t, retireConfig("pageviews"))
	e.clock.Advance(RetiredKeep - time.Hour)
	e.refresh()
	e = e.restart(t, retireConfig("pageviews"))
	e.refresh()
	e.Close()
	if ids := savedUnits(t, state); !ids["proj-docs/conversations"] {
		t.Errorf("within %s, the state file holds %v, want the conversations too", RetiredKeep, ids)
	}
	e = e.restart(t, retireConfig("pageviews"))
	e.clock.Advance(time.Hour)
	e.refresh()
	e.Close()
	if ids := savedUnits(t, state); ids["proj-docs/conversations"] || !ids["proj-docs/pageviews"] {
		t.Errorf("after %s, the state file holds %v, want the page views alone", RetiredKeep, ids)
	}
}
