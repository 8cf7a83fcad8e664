package engine

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// What the engine's tests read of it: through View, as package collector
// does, and from the simulated API's record of requests.

// docsConfig is a configuration of one key, acme, and the project
// proj-docs (label docs); globals and project are extra YAML lines,
// already indented (two spaces under global:, four under the project).
// %s stands for the API URL, as newTestEngine expects.
func docsConfig(globals, project string) string {
	return "global:\n  api_url: %s\n" + globals +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n" + project
}

// oneProject is proj-docs with the default collectors, refreshed at most
// every minute, data shown for 3 hours.
var oneProject = docsConfig("  min_refresh_interval: 1m\n  max_age: 3h\n", "")

// unit is the unit of the kind named k for the project labelled project.
func (e *testEngine) unit(t *testing.T, k, project string) UnitView {
	t.Helper()
	for _, u := range e.View().Units {
		if u.Collector().Name == k && u.Project() == project {
			return u
		}
	}
	t.Fatalf("no unit %s of project %s", k, project)
	return UnitView{}
}

// health is the health of the unit of kind k for project.
func (e *testEngine) health(t *testing.T, k, project string) Health {
	t.Helper()
	return e.unit(t, k, project).Health()
}

// window is a copy of the window labelled label of the unit of kind k
// for project, its walk cloned.
func (e *testEngine) window(t *testing.T, k, project, label string) Window {
	t.Helper()
	var out Window
	found := false
	e.unit(t, k, project).Windows(func(w Window) {
		if w.Label == label {
			out, found = w, true
			if p, ok := w.Payload.(*collector.WalkPayload); ok {
				c := *p
				for _, w := range []**mintlify.Walk{&c.Data, &c.Walk} {
					if *w != nil {
						*w = (*w).Clone()
					}
				}
				out.Payload = &c
			}
		}
	})
	if !found {
		t.Fatalf("unit %s of project %s has no window %q", k, project, label)
	}
	return out
}

// monthWalk is the page views' month walk shown for project; it fails
// the test when none is.
func (e *testEngine) monthWalk(t *testing.T, project string) (*mintlify.Walk, Window) {
	t.Helper()
	w := e.window(t, collector.PageViews, project, "month")
	if shownWalk(w) == nil {
		t.Fatalf("project %s shows no month walk", project)
	}
	return shownWalk(w), w
}

// shownWalk is the walk a page views' or visitors' window exports: the last
// complete, else the one in progress once it read a page.
func shownWalk(w Window) *mintlify.Walk {
	p, ok := w.Payload.(*collector.WalkPayload)
	switch {
	case !ok:
		return nil
	case p.Data != nil:
		return p.Data
	case p.Walk != nil && p.Walk.Requests > 0:
		return p.Walk
	}
	return nil
}

// complete reports whether a walked window shows a complete walk.
func complete(w Window) bool {
	p, ok := w.Payload.(*collector.WalkPayload)
	return ok && p.Data != nil
}

// remaining is what the walk in progress of a walked window has left to read.
func remaining(w Window) int {
	if p, ok := w.Payload.(*collector.WalkPayload); ok {
		return p.Remaining()
	}
	return 0
}

// key is the budget of the key named name.
func (e *testEngine) key(t *testing.T, name string) KeyView {
	t.Helper()
	for _, k := range e.View().Keys() {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no key %s", name)
	return KeyView{}
}

// requests counts the requests of endpoint the simulated API received.
func (e *testEngine) requests(endpoint string) int {
	return e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == endpoint })
}

// refreshEvery runs n refreshes, step apart on the fake clock, as
// scrapes that often would.
func (e *testEngine) refreshEvery(step time.Duration, n int) {
	for range n {
		e.Refresh(context.Background())
		e.Wait()
		e.clock.Advance(step)
	}
}

// expectWithinBudget fails unless no answer was a 429 and no one-hour
// span saw more analytics requests than the key's 90 (100 less the
// reserve).
func (e *testEngine) expectWithinBudget(t *testing.T) {
	t.Helper()
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == 429 }); n != 0 {
		t.Fatalf("%d answers were 429", n)
	}
	if n := e.api.Server.MostInAnyHour(mockapi.EndpointGetJob); n > 90 {
		t.Fatalf("%d analytics requests in one hour; the budget is 100 less a reserve of 10", n)
	}
}

// wasted counts analytics requests that asked for a page already paid for
// in the same walk: same endpoint, project, date range and offset. The
// month window asks for the same range all day, so one range is walked
// many times: a walk ends when it has read every offset the range ever
// had, and only a repeat before that is waste. A walk that resumes
// instead of starting again wastes nothing.
func (e *testEngine) wasted() int {
	type walkKey struct{ endpoint, project, rng string }
	var reqs []mockapi.Request
	for _, r := range e.api.Server.Requests() {
		if r.Endpoint != mockapi.EndpointGetJob && r.Status == 200 {
			reqs = append(reqs, r)
		}
	}
	offsetOf := func(r mockapi.Request) (walkKey, int) {
		q, _ := url.ParseQuery(r.Query)
		off, _ := strconv.Atoi(q.Get("offset"))
		q.Del("offset")
		return walkKey{r.Endpoint, r.ProjectID, q.Encode()}, off
	}
	last := map[walkKey]int{}
	for _, r := range reqs {
		k, off := offsetOf(r)
		last[k] = max(last[k], off)
	}
	seen := map[walkKey]map[int]bool{}
	n := 0
	for _, r := range reqs {
		k, off := offsetOf(r)
		if seen[k] == nil {
			seen[k] = map[int]bool{}
		}
		if seen[k][off] {
			if !readAll(seen[k], last[k]) {
				n++
				continue
			}
			seen[k] = map[int]bool{} // the next walk of the same range
		}
		seen[k][off] = true
	}
	return n
}

// readAll reports whether every offset up to last was read (every test
// walk reads 250 rows a page).
func readAll(seen map[int]bool, last int) bool {
	for o := 0; o <= last; o += 250 {
		if !seen[o] {
			return false
		}
	}
	return true
}

// pathsAccountedFor is the rows of project's last complete month walk
// plus the rows it read twice. A walk the budget spreads over hours reads
// the upstream's ranking as it changes: a path that moves to a page not
// read yet is read twice (counted once, in Duplicates), and for each such
// move one path moves the other way, to a page already read, and is
// missed until the next walk. The two add up to the site's paths.
// (Shared by weight since #36 case 4, a big site's walk is split where
// its kind's share of the hour ends rather than where the whole hour
// does.)
func (e *testEngine) pathsAccountedFor(t *testing.T, project string) int {
	t.Helper()
	w, _ := e.monthWalk(t, project)
	return len(w.Rows) + w.Duplicates
}

// bufLogger is a logger of every level into buf, for tests that read
// what the engine logs.
func bufLogger(buf *testkit.LockedBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
