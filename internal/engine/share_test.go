package engine

import (
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// A month of about 2 000 conversations a day (83 an hour) on a small
// site: page views cost one request a refresh, the feedback backlog one,
// and the first walk of the month's conversations hundreds (tens with
// pages of 1 000 rows).
var busySite = mockapi.Site{Seed: 11, Paths: 40, ConversationsPerHour: 83}

// shareConfig is a config of one project with collectors, the rest the
// defaults (budget 100 an hour less the reserve of 10).
func shareConfig(collectors ...string) string {
	return "global:\n  api_url: %s\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    collectors: [" + strings.Join(collectors, ", ") + "]\n"
}

// withBigWalk is the default collectors plus conversations and the
// feedback backlog.
func withBigWalk() []string {
	return append(collector.All.Defaults(), collector.Conversations, collector.FeedbackBacklog)
}

// unitView is the unit of collector in v.
func unitView(t *testing.T, v View, collector string) UnitView {
	t.Helper()
	for _, u := range v.Units {
		if u.Collector().Name == collector {
			return u
		}
	}
	t.Fatalf("no unit of %s", collector)
	return UnitView{}
}

// finishedDays is how many finished days of conversations u shows.
func finishedDays(u UnitView) int {
	n := 0
	u.Windows(func(w Window) {
		p, ok := w.Payload.(*collector.ConversationsPayload)
		if !ok || p == nil || (w.DataTime.IsZero() && !w.Partial) {
			return
		}
		for _, d := range p.Days {
			if d.Final {
				n++
			}
		}
	})
	return n
}

// conversationsDue is how long conversations take to show their first
// finished day: within the hour when a day's pages fit the kind's share
// of the hour (weight 1 of the kinds' weights, of 90 requests), else the
// hours that share needs for a day. With pages of 1 000 rows a day is
// 2 pages; with 100, 20 pages against a share of 15 an hour.
func conversationsDue(collectors []string) time.Duration {
	var total float64
	for _, c := range collectors {
		total += config.DefaultGlobal.CollectorWeights.Of(c)
	}
	share := math.Ceil(90 * config.DefaultGlobal.CollectorWeights.Of(collector.Conversations) / total)
	pages := math.Ceil(float64(busySite.ConversationsPerHour*24+1) / mintlify.ConversationsPageSize)
	return time.Duration(math.Ceil(pages/share)) * time.Hour
}

// watch refreshes e every step for d and reports, per collector, when it
// was first up (zero if never), failing the test if one that was up goes
// down.
func watch(t *testing.T, e *testEngine, step, d time.Duration, up map[string]time.Time) {
	t.Helper()
	for end := e.clock.Now().Add(d); e.clock.Now().Before(end); e.clock.Advance(step) {
		e.refresh()
		for _, u := range e.View().Units {
			name, h := u.Collector().Name, u.Health()
			switch {
			case h.Up && up[name].IsZero():
				up[name] = e.clock.Now()
			case !h.Up && !up[name].IsZero():
				t.Fatalf("%s: %s went down after being up: %+v", e.clock.Now().Format(time.TimeOnly), name, h)
			}
		}
	}
}

// A first walk of any size keeps no collector from its first refresh:
// with the month of conversations to walk, page views and the feedback
// backlog are up after the first run, and conversations show their
// finished days (up, partial) while the walk goes on. No 429.
func TestBigFirstWalkLeavesEveryCollectorItsTurn(t *testing.T) {
	collectors := withBigWalk()
	e := newTestEngine(t, shareConfig(collectors...), mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": busySite}}, Options{})
	start := e.clock.Now()
	up := map[string]time.Time{}
	watch(t, e, 15*time.Second, 3*time.Minute, up)
	for _, c := range collectors {
		if c == collector.Conversations {
			continue
		}
		if up[c].IsZero() {
			t.Errorf("%s never up in its first 3 minutes, want up after its first refresh", c)
		} else if d := up[c].Sub(start); d > time.Minute {
			t.Errorf("%s first up %v after start, want within the first minute (its first refresh)", c, d)
		}
	}
	due := conversationsDue(collectors)
	for e.clock.Now().Sub(start) < due && finishedDays(unitView(t, e.View(), collector.Conversations)) == 0 {
		watch(t, e, 15*time.Second, time.Minute, up)
	}
	conv := unitView(t, e.View(), collector.Conversations)
	h := conv.Health()
	if n := finishedDays(conv); n == 0 || !h.Up || !conv.Fresh() {
		t.Fatalf("after %v: conversations show %d finished days, up %v: want them shown within %v", e.clock.Now().Sub(start), n, h.Up, due)
	}
	if !h.Partial {
		t.Error("the month's walk is not done, yet conversations are not marked partial")
	}
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == http.StatusTooManyRequests }); n != 0 {
		t.Errorf("%d answers were 429", n)
	}
	t.Logf("conversations showed %d finished days after %v (%d pages of %d rows)", finishedDays(conv), e.clock.Now().Sub(start),
		e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == mockapi.EndpointConversations }), mintlify.ConversationsPageSize)
}

// requestsSince counts the requests to endpoint made at or after t.
func (e *testEngine) requestsSince(endpoint string, t time.Time) int {
	return e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == endpoint && !r.Time.Before(t) })
}

// Turning conversations on by a reload of a running engine spends their
// share of the hour, not the hour: page views and the feedback backlog
// keep refreshing at their intervals, and conversations show their
// finished days as soon as the first case does.
func TestReloadTurningOnABigWalkDoesNotBurst(t *testing.T) {
	before := append(collector.All.Defaults(), collector.FeedbackBacklog)
	e := newTestEngine(t, shareConfig(before...), mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": busySite}}, Options{})
	up := map[string]time.Time{}
	watch(t, e, 15*time.Second, 10*time.Minute, up)
	cfg, err := config.Parse([]byte(strings.Replace(shareConfig(withBigWalk()...), "%s", e.api.URL(), 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	reload := e.clock.Now()
	watch(t, e, 15*time.Second, time.Minute, up)
	// The share of conversations is 90 × 1/6 of an hour: 15 requests.
	if n := e.requestsSince(mockapi.EndpointConversations, reload); n == 0 || n > 15 {
		t.Errorf("%d requests for conversations in the minute after the reload, want 1 to 15 (their share of the hour)", n)
	}
	watch(t, e, 15*time.Second, 29*time.Minute, up)
	v := e.View()
	for _, c := range []struct {
		collector, endpoint string
	}{{collector.PageViews, mockapi.EndpointViews}, {collector.FeedbackBacklog, mockapi.EndpointFeedbackEntries}} {
		iv := unitView(t, v, c.collector).Health().Interval
		want := int(30*time.Minute/iv) - 1
		if n := e.requestsSince(c.endpoint, reload); n < want {
			t.Errorf("%s: %d requests in the 30 minutes after the reload, want at least %d (a refresh every %v)", c.collector, n, want, iv)
		}
	}
	due := conversationsDue(withBigWalk())
	for e.clock.Now().Sub(reload) < due && finishedDays(unitView(t, e.View(), collector.Conversations)) == 0 {
		watch(t, e, 15*time.Second, time.Minute, up)
	}
	if conv := unitView(t, e.View(), collector.Conversations); finishedDays(conv) == 0 || !conv.Health().Up {
		t.Errorf("conversations turned on by a reload show no finished day after %v", e.clock.Now().Sub(reload))
	}
	if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == http.StatusTooManyRequests }); n != 0 {
		t.Errorf("%d answers were 429", n)
	}
}

// A unit its grant stopped mid-refresh waits behind the other due units:
// two projects' first walks of conversations share the run instead of the
// first walking until the hour is spent.
func TestPausedUnitWaitsItsTurn(t *testing.T) {
	// Each month is a walk of a page a day, 19 pages, more than a first
	// walk's reservation: the old scheduler let project a walk all of its
	// month before project b's first request.
	cfg := "global:\n  api_url: %s\n" +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n  - {id: proj-a, name: a, collectors: [conversations]}\n  - {id: proj-b, name: b, collectors: [conversations]}\n"
	site := mockapi.Site{Seed: 11, Paths: 40, ConversationsPerHour: 20}
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-a": site, "proj-b": site}}, Options{})
	e.refresh()
	var order []string
	for _, r := range e.api.Server.Requests() {
		if r.Endpoint == mockapi.EndpointConversations {
			order = append(order, r.ProjectID)
		}
	}
	count := map[string]int{}
	firstB, lastA := -1, -1
	for i, p := range order {
		count[p]++
		if p == "proj-b" && firstB < 0 {
			firstB = i
		}
		if p == "proj-a" {
			lastA = i
		}
	}
	if firstB < 0 || firstB > lastA {
		t.Fatalf("project b's walk began after project a's had stopped for good: %d requests of a, then %d of b", count["proj-a"], count["proj-b"])
	}
	for _, p := range []string{"proj-a", "proj-b"} {
		if count[p] < len(order)/3 {
			t.Errorf("%s made %d of the run's %d requests, want a fair part", p, count[p], len(order))
		}
	}
}

// mintlify_refresh_interval_seconds tells the time between a unit's
// refreshes: for page views and the feedback backlog, while the first
// walk of conversations goes on, the time between two successes is the
// interval reported after the first of them, to within a step of the
// clock; and the walk's own interval is never shorter than it has run.
func TestIntervalIsTheTimeBetweenRefreshes(t *testing.T) {
	t.Parallel() // its own engine, API and files; it waits on real deadlines or walks long
	const step = 15 * time.Second
	e := newTestEngine(t, shareConfig(withBigWalk()...), mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": busySite}}, Options{})
	start := e.clock.Now()
	last := map[string]Health{}
	gaps := map[string]int{}
	var walkStart time.Time
	for ; e.clock.Now().Before(start.Add(2 * time.Hour)); e.clock.Advance(step) {
		e.refresh()
		for _, u := range e.View().Units {
			name, h := u.Collector().Name, u.Health()
			if name == collector.Conversations {
				if walkStart.IsZero() && e.requestsSince(mockapi.EndpointConversations, start) > 0 {
					walkStart = e.clock.Now()
				}
				if h.Partial && h.Interval < e.clock.Now().Sub(walkStart) {
					t.Fatalf("%v into the month's walk, conversations report an interval of %v", e.clock.Now().Sub(walkStart), h.Interval)
				}
				continue
			}
			prev, seen := last[name]
			if seen && !h.LastSuccess.Equal(prev.LastSuccess) {
				gap := h.LastSuccess.Sub(prev.LastSuccess)
				if gap < prev.Interval || gap > prev.Interval+step {
					t.Errorf("%s: %v between refreshes at %s, interval reported %v", name, gap, h.LastSuccess.Format(time.TimeOnly), prev.Interval)
				}
				gaps[name]++
			}
			if !seen || !h.LastSuccess.Equal(prev.LastSuccess) {
				last[name] = h
			}
		}
	}
	for _, c := range []string{collector.PageViews, collector.FeedbackBacklog} {
		if want := int(2*time.Hour/last[c].Interval) - 2; gaps[c] < want {
			t.Errorf("%s refreshed %d times in 2 hours, want %d (every %v)", c, gaps[c], want, last[c].Interval)
		}
	}
}

// fill shares a key's limit by weight, a kind never getting more than it
// can use while another could, and always hands out the whole limit.
func TestFillSharesByWeightUpToDemand(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name            string
		demand, weights []float64
		want            []float64
	}{
		{"all hungry: by weight", []float64{inf, inf, inf}, []float64{4, 1, 1}, []float64{60, 15, 15}},
		{"demand equal to the share", []float64{60, inf, inf}, []float64{4, 1, 1}, []float64{60, 15, 15}},
		{"an unused share goes to the others", []float64{12, inf, inf}, []float64{4, 1, 1}, []float64{12, 39, 39}},
		{"in turn, by weight", []float64{12, 20, inf}, []float64{4, 2, 1}, []float64{12, 20, 58}},
		{"none can use it all: the rest by weight", []float64{10, 10, 10}, []float64{4, 1, 1}, []float64{50, 20, 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			shares := map[string]*collectorShare{}
			names := []string{"a", "b", "c"}
			for i, n := range names {
				shares[n] = &collectorShare{demand: c.demand[i], weight: c.weights[i]}
			}
			fill(shares, 90)
			var sum float64
			for i, n := range names {
				sum += shares[n].rate
				if math.Abs(shares[n].rate-c.want[i]) > 1e-9 {
					t.Errorf("%s: rate %v, want %v", n, shares[n].rate, c.want[i])
				}
			}
			if math.Abs(sum-90) > 1e-9 {
				t.Errorf("the rates add up to %v, want the limit 90", sum)
			}
		})
	}
}

// backlogConfig is one project with the feedback backlog alone, under a
// key of 40 requests an hour; bigBacklog is about 9 000 open entries (90
// pages), a walk of over two hours.
const backlogConfig = "global:\n  api_url: %s\n  max_age: 1h\n" +
	"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 40\n    reserve: 0\n" +
	"projects:\n  - {id: proj-docs, name: docs, collectors: [feedback-backlog]}\n"

var bigBacklog = mockapi.Site{Seed: 2, Paths: 40, FeedbackPerDay: 400}

// A kind whose paused walk shows its last complete count (the feedback
// backlog) shows it with that count's age: the walk's progress does not
// make old counts look new. The big backlog against 40 requests an hour is
// walked in over two hours; with a max_age of 1h the count goes stale
// while the next walk goes on. (The first walk, before any complete
// count, is TestBacklogFirstWalkIsUpWithNoCount.)
func TestPausedBacklogWalkKeepsItsCountsAge(t *testing.T) {
	e := newTestEngine(t, backlogConfig, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": bigBacklog}}, Options{})
	var done time.Time
	for step := 0; step < 8*60; step++ {
		e.refresh()
		u := unitView(t, e.View(), collector.FeedbackBacklog)
		h := u.Health()
		if h.Partial {
			if !done.IsZero() {
				t.Fatalf("%s: a paused walk of the backlog marked partial: it shows the last complete count", e.clock.Now().Format(time.TimeOnly))
			}
			e.clock.Advance(time.Minute)
			continue // the first walk
		}
		if done.IsZero() && !h.LastSuccess.IsZero() {
			done = h.LastSuccess
		}
		if !done.IsZero() && e.clock.Now().Sub(h.LastSuccess) > time.Hour {
			if h.Up || u.Fresh() {
				t.Fatalf("%s: up with counts of %s, older than max_age", e.clock.Now().Format(time.TimeOnly), h.LastSuccess.Format(time.TimeOnly))
			}
			return // stale as it should be, while the next walk goes on
		}
		e.clock.Advance(time.Minute)
	}
	t.Fatalf("no complete walk was older than max_age in 8 hours (first complete at %v): the test proves nothing", done)
}

// TestBacklogFirstWalkIsUpWithNoCount: while the first walk of a backlog
// larger than the hour's budget goes on, nothing failed, so the unit is
// up and partial, and shows no count (a backlog is no sum of parts), after
// a restart too; once the walk ends, the count is shown, complete.
func TestBacklogFirstWalkIsUpWithNoCount(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newTestEngine(t, backlogConfig, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": bigBacklog}}, Options{StoragePath: state})
	row, _ := collector.Lookup(collector.FeedbackBacklog)
	code := row.Fetched
	open := func() (series int) {
		u := e.unit(t, collector.FeedbackBacklog, "docs")
		u.Windows(func(w Window) { // the payload is read under the unit's lock
			if w.Payload == nil {
				return
			}
			for _, s := range code.Samples(w.Payload, u.Settings()) {
				if s.Family == "mintlify_feedback_open" {
					series++
				}
			}
		})
		return series
	}
	e.refresh()
	h := e.health(t, collector.FeedbackBacklog, "docs")
	if !h.Up || !h.Partial || len(h.FailCounts) != 0 {
		t.Fatalf("during the first walk: up %v, partial %v, failures %v; want up and partial, nothing failed", h.Up, h.Partial, h.FailCounts)
	}
	if n := open(); n != 0 {
		t.Fatalf("during the first walk: %d mintlify_feedback_open series, want none (no count is complete)", n)
	}
	requests := e.requests(mockapi.EndpointFeedbackEntries)
	e = e.restart(t, backlogConfig)
	if h := e.health(t, collector.FeedbackBacklog, "docs"); !h.Up || !h.Partial {
		t.Fatalf("after a restart during the first walk: up %v, partial %v; want both", h.Up, h.Partial)
	}
	if n := e.requests(mockapi.EndpointFeedbackEntries); n != requests {
		t.Fatalf("the restart made %d requests before any refresh", n-requests)
	}
	for step := 0; step < 4*60 && e.health(t, collector.FeedbackBacklog, "docs").Partial; step++ {
		e.clock.Advance(time.Minute)
		e.refresh()
	}
	h = e.health(t, collector.FeedbackBacklog, "docs")
	if !h.Up || h.Partial || open() == 0 {
		t.Fatalf("after 4 hours: up %v, partial %v, %d open series; want the complete count shown", h.Up, h.Partial, open())
	}
}

// TestCycleWarningOnceAWalkLearnsItsCost: a key whose refresh looks short
// at start (a backlog's cost is not known before its first walk) warns
// once, when the walk has learnt a cost that makes the cycle longer than
// max_age, and names the kind that takes that long; not at start, and not
// again at every run.
func TestCycleWarningOnceAWalkLearnsItsCost(t *testing.T) {
	logs := &testkit.LockedBuffer{}
	e := newTestEngine(t, shareConfig(withBigWalk()...),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 11, Paths: 40, FeedbackPerDay: 200}}},
		Options{Logger: bufLogger(logs)})
	warnings := func() []string { return cycleWarnings(logs) }
	if ws := warnings(); len(ws) != 0 {
		t.Fatalf("a cycle warning at start, before any cost is known:\n%s", ws[0])
	}
	for range 8 * 4 { // 8 hours: the first walk ends, then others run
		e.refresh()
		e.clock.Advance(15 * time.Minute)
	}
	if c := e.key(t, "acme").Cycle; c <= 3*time.Hour {
		t.Fatalf("cycle %v: the backlog is too small for the test to say anything", c)
	}
	ws := warnings()
	if len(ws) != 1 {
		t.Fatalf("%d cycle warnings, want 1:\n%s", len(ws), strings.Join(ws, "\n"))
	}
	if !strings.Contains(ws[0], "longest="+collector.FeedbackBacklog) {
		t.Errorf("the warning does not name the backlog as the longest: %s", ws[0])
	}
}
