package engine

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// Three restarts within an hour continue the ledger and serve the saved
// data at once: no extra request, no 429, the last refresh time from
// before the restart.
func TestRestartCostsNothing(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	cfg := docsConfig("  min_refresh_interval: 30m\n", "")
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}},
		Options{StoragePath: state})
	e.refresh()
	walk, _ := e.monthWalk(t, "docs")
	pages := len(walk.Rows)
	before := e.api.Server.CountRequests(nil)
	last := e.health(t, collector.PageViews, "docs").LastSuccess
	used := e.key(t, "acme").Used
	for i := range 3 {
		e.clock.Advance(5 * time.Minute)
		e = e.restart(t, cfg)
		// Before any refresh: served from the state file.
		if got := e.health(t, collector.PageViews, "docs").LastSuccess; !got.Equal(last) {
			t.Fatalf("restart %d: last refresh %v, want %v from before the restart", i, got, last)
		}
		if walk, _ := e.monthWalk(t, "docs"); len(walk.Rows) != pages || pages == 0 {
			t.Fatalf("restart %d: the saved paths are not served at once", i)
		}
		if got := e.key(t, "acme").Used; got != used {
			t.Fatalf("restart %d: budget used %v, want %v carried over", i, got, used)
		}
		e.refresh() // not due yet: must not refresh
	}
	if n := e.api.Server.CountRequests(nil) - before; n != 0 {
		t.Fatalf("3 restarts cost %d requests, want 0", n)
	}
}

// viewText is what View shows of e, as text a test can compare: the
// configuration's generation, the keys' budgets, each unit's health and
// its windows' data.
func (e *testEngine) viewText() string {
	v := e.View()
	var b strings.Builder
	fmt.Fprintf(&b, "gen %d\n", v.Gen)
	for _, k := range v.Keys() {
		fmt.Fprintf(&b, "key %+v\n", k)
	}
	for _, u := range v.Units {
		fmt.Fprintf(&b, "unit %s %s %+v %+v %v\n", u.Collector().Name, u.Project(), u.Settings(), u.Health(), u.Fresh())
		u.Windows(func(w Window) {
			rows := -1
			if walk := shownWalk(w); walk != nil {
				rows = len(walk.Rows)
			}
			fmt.Fprintf(&b, "  window %q %v %v rows %d remaining %d payload %v\n", w.Label, w.DataTime, complete(w), rows, remaining(w), w.Payload != nil)
		})
	}
	for _, j := range v.Jobs {
		fmt.Fprintf(&b, "jobs %+v %+v\n", j.Health(), j.Jobs())
	}
	return b.String()
}

// A refused reload changes nothing: not the budget, not the data.
func TestRefusedReloadChangesNothing(t *testing.T) {
	keys := map[string]string{"TEST_MINTLIFY_KEY": testKey}
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}},
		Options{Getenv: func(k string) string { return keys[k] }})
	e.refresh()
	before := e.viewText()
	// A lower budget for acme, then a second key that is refused (an
	// assistant key, not an admin key): the whole reload is refused.
	bad := strings.Replace(oneProject, "api_key_env: TEST_MINTLIFY_KEY",
		"api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 30\n  - name: other\n    api_key_env: OTHER_KEY", 1)
	bad = strings.Replace(bad, "name: docs\n", "name: docs\n    key: acme\n", 1)
	keys["OTHER_KEY"] = "mint_dsc_notanadminkey"
	cfg, err := config.Parse(fmt.Appendf(nil, bad, e.api.URL()))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(cfg); err == nil {
		t.Fatal("a config with a refused key was accepted")
	}
	if after := e.viewText(); after != before {
		t.Fatalf("a refused reload changed the view:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// A reload while a walk is paused (or in flight) lands the walk in the
// new config: it resumes, and no page is paid twice.
func TestReloadMidWalkLandsTheWalk(t *testing.T) {
	cfg := docsConfig("  min_refresh_interval: 1m\n", "    max_paths: 0\n")
	small := strings.Replace(cfg, "api_key_env: TEST_MINTLIFY_KEY", "api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 40", 1)
	e := newTestEngine(t, small, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 12000}}}, Options{})
	e.refresh() // 36 of 48 pages: the walk pauses
	if _, w := e.monthWalk(t, "docs"); remaining(w) == 0 {
		t.Fatal("the walk is not paused mid-way")
	}
	e.apply(t, strings.Replace(small, "max_age: 3h", "max_age: 4h", 1)+"    exclude_paths: ['^/nothing$']\n")
	// In flight across a reload: start the refresh, reload, then wait.
	e.clock.Advance(time.Hour)
	e.Refresh(t.Context())
	e.apply(t, small)
	e.Wait()
	// The month's range reaches up to now, so rows move between pages
	// while the walk waits an hour: a row that moved to a page not read
	// yet comes twice, and pushes one row back onto a page already read.
	walk, w := e.monthWalk(t, "docs")
	if len(walk.Rows)+walk.Duplicates != 12000 || remaining(w) != 0 {
		t.Fatalf("%v paths and %v duplicate rows after the reloads, want the whole walk's 12000 rows", len(walk.Rows), walk.Duplicates)
	}
	if n := e.wasted(); n != 0 {
		t.Fatalf("%d pages paid twice across the reloads", n)
	}
	if n := e.requests(mockapi.EndpointViews); n != 48 {
		t.Fatalf("%d requests, want the 48 pages once", n)
	}
}

// A reload that gives a project name another id drops the old project's
// data, for every collector, and fetches the new one's.
func TestIDChangeUnderSameNameRefetches(t *testing.T) {
	cfg := docsConfig("  min_refresh_interval: 1m\n", "    collectors: ["+strings.Join(collector.Names(), ", ")+"]\n")
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{
		"proj-docs": {Seed: 1, Paths: 10}, "proj-new": {Seed: 2, Paths: 3}}}, Options{})
	e.refresh()
	oldPaths := len(shownWalk(e.window(t, collector.PageViews, "docs", "month")).Rows)
	e.apply(t, strings.Replace(cfg, "id: proj-docs", "id: proj-new", 1))
	for _, u := range e.View().Units {
		if u.Fresh() {
			t.Errorf("%s: the old project's data is still shown under the new id", u.Collector().Name)
		}
	}
	e.refresh()
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.ProjectID == "proj-new" }); n == 0 {
		t.Fatal("the new project id was never fetched")
	}
	if got := len(shownWalk(e.window(t, collector.PageViews, "docs", "month")).Rows); got != 3 || oldPaths != 10 {
		t.Fatalf("%d paths (%d before), want the new project's 3", got, oldPaths)
	}
}

// A corrupt, foreign or future-version state file is ignored: the exporter
// starts afresh instead of failing, and the file is kept aside as
// STATE.corrupt-<time> (#36 case 7).
func TestBadStateFileIsIgnored(t *testing.T) {
	for name, content := range map[string]string{
		"corrupt": "{not json",
		"foreign": `{"kind":"something else","version":1}`,
		"future":  `{"kind":"mintlify_exporter state","version":99}`,
		"garbage": strings.Repeat("\x00", 100),
		"cut":     `{"kind":"mintlify_exporter state","version":3,"units":{"proj-docs/pageviews":{"health":{"fail`,
		"array":   `[{"kind":"mintlify_exporter state","version":3}]`,
		"units":   `{"kind":"mintlify_exporter state","version":3,"units":["proj-docs/pageviews"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(state, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			logs := &testkit.LockedBuffer{}
			e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}},
				Options{StoragePath: state, Logger: bufLogger(logs)})
			e.refresh()
			if !e.health(t, collector.PageViews, "docs").Up {
				t.Fatal("not up after ignoring the state file")
			}
			if !strings.Contains(logs.String(), "ignoring the state file") {
				t.Fatal("the bad state file was not logged")
			}
			aside, _ := filepath.Glob(state + ".corrupt-*")
			if len(aside) != 1 {
				t.Fatalf("%d files moved aside, want the bad one: %v", len(aside), aside)
			}
			if b, err := os.ReadFile(aside[0]); err != nil || string(b) != content {
				t.Errorf("%s holds %q (%v), want the bad file's content", aside[0], b, err)
			}
			e.Close()
			b, err := os.ReadFile(state)
			if err != nil || !strings.Contains(string(b), `"kind":"mintlify_exporter state"`) {
				t.Fatalf("no good state written over the bad one: %v", err)
			}
		})
	}
}

// The key never reaches the state file: only its fingerprint.
func TestStateFileHoldsNoKey(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}},
		Options{StoragePath: state})
	e.refresh()
	e.Close()
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), testKey) || strings.Contains(string(b), url.QueryEscape(testKey)) || strings.Contains(string(b), `"acme"`) {
		t.Fatal("the state file holds the key or its name")
	}
}

// A reload keeps the data (and makes no extra sweep); a reload whose key
// cannot be read is refused, naming the variable, and the running
// configuration stays as it was. (That the kept data is filtered anew is
// tested in collector: TestReloadRefiltersTheSeries.)
func TestReloadKeepsDataAndBadReloadKeepsState(t *testing.T) {
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}},
		Options{Getenv: func(k string) string { return map[string]string{"TEST_MINTLIFY_KEY": testKey}[k] }})
	e.refresh()
	views := e.requests(mockapi.EndpointViews)
	e.apply(t, docsConfig("", "    windows: [24h]\n    include_paths: ['^/docs/']\n"))
	if walk, _ := e.monthWalk(t, "docs"); len(walk.Rows) != 10 {
		t.Fatalf("the cache was not kept on reload: %d paths", len(walk.Rows))
	}
	e.refresh()
	if e.requests(mockapi.EndpointViews) != views {
		t.Fatal("a reload triggered an extra sweep")
	}
	before := e.viewText()
	// A config whose key cannot be read is refused; the running one stays.
	bad, err := config.Parse(fmt.Appendf(nil, strings.ReplaceAll(oneProject, "TEST_MINTLIFY_KEY", "UNSET_VAR"), e.api.URL()))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(bad); err == nil || !strings.Contains(err.Error(), "UNSET_VAR") {
		t.Fatalf("bad reload: err = %v", err)
	}
	if after := e.viewText(); after != before {
		t.Fatalf("a failed reload changed the view:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
