package engine

import (
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// conversationsConfig is docs with the conversations alone.
var conversationsConfig = docsConfig("", "    collectors: [conversations]\n")

// conversationWalks counts the walks of each day of the conversations
// endpoint: its requests without a cursor (a walk's first page), by
// dateFrom; pages counts all its requests.
func (e *testEngine) conversationWalks() (walks map[string]int, pages int) {
	walks = map[string]int{}
	for _, r := range e.api.Server.Requests() {
		if r.Endpoint != mockapi.EndpointConversations {
			continue
		}
		pages++
		q, _ := url.ParseQuery(r.Query)
		if q.Get("cursor") == "" {
			walks[q.Get("dateFrom")]++
		}
	}
	return walks, pages
}

// conversations are the month's conversations docs shows, by resolution
// and response type ("answered/answer"), as the kind's samples say; nil
// when the month window shows no payload.
func (e *testEngine) conversations(t *testing.T) map[string]float64 {
	t.Helper()
	u := e.unit(t, collector.Conversations, "docs")
	row, _ := collector.Lookup(collector.Conversations)
	code := row.Fetched
	var samples []spec.Sample
	shown := false
	u.Windows(func(w Window) { // the payload is read under the unit's lock
		if w.Month && w.Payload != nil {
			samples, shown = code.Samples(w.Payload, u.Settings()), true
		}
	})
	if !shown {
		return nil
	}
	out := map[string]float64{}
	for _, s := range samples {
		if s.Family != "mintlify_assistant_conversations_total" {
			continue
		}
		var res, typ string
		for _, l := range s.Labels {
			switch l.Name {
			case "resolution":
				res = l.Value
			case "response_type":
				typ = l.Value
			}
		}
		out[res+"/"+typ] += s.Value
	}
	return out
}

// A finished day of conversations is walked once: across two days of
// refreshes and a restart in between, each day before the first refresh's
// is walked once, that day itself until its grace ends, and the restart
// serves the month's counts at once and walks no finished day again.
func TestConversationsFinishedDaysAreWalkedOnce(t *testing.T) {
	t.Parallel() // hours of simulated work; a test engine shares nothing
	state := filepath.Join(t.TempDir(), "state.json")
	cfg := docsConfig("  min_refresh_interval: 30m\n  max_refresh_interval: 1h\n", "    collectors: [conversations]\n")
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 3, Paths: 50, ConversationsPerHour: 6}}},
		Options{StoragePath: state})
	e.refresh() // 2026-11-20 12:00: the 1st to the 20th
	walks, pages := e.conversationWalks()
	if len(walks) != 20 {
		t.Fatalf("the first refresh walked %d days, want the 20 of the month to date: %v", len(walks), walks)
	}
	const series = "unanswered/answer"
	before := e.conversations(t)[series]
	if before == 0 {
		t.Fatal("no unanswered conversations counted")
	}
	// Through the rest of the 20th, past midnight and the grace, with a
	// restart on the 21st at 01:00.
	for e.clock.Now().Before(time.Date(2026, 11, 21, 1, 0, 0, 0, time.UTC)) {
		e.clock.Advance(30 * time.Minute)
		e.refresh()
	}
	e = e.restart(t, cfg)
	if got := e.conversations(t)[series]; got < before {
		t.Fatalf("after the restart, before any refresh: %v unanswered, had %v", got, before)
	}
	for e.clock.Now().Before(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)) {
		e.clock.Advance(30 * time.Minute)
		e.refresh()
	}
	walks, total := e.conversationWalks()
	for d := 1; d <= 19; d++ {
		date := time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
		if walks[date] != 1 {
			t.Errorf("%s walked %d times, want once", date, walks[date])
		}
	}
	// The 20th: every refresh walks it until 02:00 on the 21st (the grace),
	// the first at or after walks it a last time, within one refresh
	// interval (1h); the restart does not start it again.
	var final, late int
	for _, r := range e.api.Server.Requests() {
		q, _ := url.ParseQuery(r.Query)
		if r.Endpoint != mockapi.EndpointConversations || q.Get("dateFrom") != "2026-11-20" || q.Get("cursor") != "" {
			continue
		}
		if !r.Time.Before(time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)) {
			final++
		}
		if !r.Time.Before(time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC)) {
			late++
		}
	}
	if final != 1 || late != 0 {
		t.Errorf("2026-11-20 walked %d times after its grace, %d of them an hour later; want once, within the hour", final, late)
	}
	if walks["2026-11-21"] == 0 {
		t.Fatal("2026-11-21 was never walked")
	}
	// Once the 20th is final, a refresh costs today's pages alone.
	finalAt := len(e.api.Server.Requests())
	e.clock.Advance(time.Hour)
	e.refresh()
	for _, r := range e.api.Server.Requests()[finalAt:] {
		q, _ := url.ParseQuery(r.Query)
		if r.Endpoint == mockapi.EndpointConversations && q.Get("dateFrom") != "2026-11-21" {
			t.Errorf("a refresh on the 21st at 13:00 asked for %s", r.Query)
		}
	}
	t.Logf("%d pages for the first refresh, %d in all", pages, total)
	e.expectWithinBudget(t)
}

// A cursor that repeats ends each cursor-paged kind's walk (every kind of
// the table marked spec.CursorPages) within a few requests as a failed
// refresh of reason bad_response (down), not at the page cap.
func TestCursorLoopIsABadResponse(t *testing.T) {
	for _, k := range collector.All {
		if k.Paging != spec.CursorPages {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			e := newTestEngine(t, docsConfig("", "    collectors: ["+k.Name+"]\n"),
				mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 5, Paths: 300, ConversationsPerHour: 120}}}, Options{})
			e.api.Server.SetFault(mockapi.Fault{RepeatingCursor: true})
			e.refresh()
			h := e.health(t, k.Name, "docs")
			if h.Up {
				t.Error("up on a looping cursor")
			}
			if n := h.FailCounts[mintlify.ReasonBadResponse]; n != 1 {
				t.Errorf("%v failures of reason bad_response, want 1", n)
			}
			asked := e.api.Server.CountRequests(func(r mockapi.Request) bool { return asks(r, k) })
			if asked == 0 || asked > 4 {
				t.Errorf("%d requests on a looping cursor, want 1 to 4", asked)
			}
		})
	}
}

// TestLoopingFirstWalkShowsNothingCached (#46 case 16): each cursor-paged
// kind whose first walk loops (a cursor that repeats) after the budget
// paused it: with nothing cached, the unit is not partial, has no last
// success, and the log says no data is cached, not that it is served.
func TestLoopingFirstWalkShowsNothingCached(t *testing.T) {
	for _, k := range collector.All {
		if k.Paging != spec.CursorPages {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			logs := &testkit.LockedBuffer{}
			e := newTestEngine(t, docsConfig("", "    collectors: ["+k.Name+"]\n"),
				mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 5, Paths: 300, ConversationsPerHour: 120}}},
				Options{Logger: bufLogger(logs)})
			e.clock.Set(time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC))
			e.api.Server.SetFault(mockapi.Fault{RepeatingCursor: true})
			e.refresh()
			h := e.health(t, k.Name, "docs")
			if h.Up || h.Partial || !h.LastSuccess.IsZero() {
				t.Errorf("after a looping first walk: up %v, partial %v, last success %v; want down, not partial, none", h.Up, h.Partial, h.LastSuccess)
			}
			if s := logs.String(); !strings.Contains(s, "no data cached yet") || strings.Contains(s, "serving cached data") {
				t.Errorf("the failure is logged as:\n%s", s)
			}
		})
	}
}

// TestRefusedCursorIsNoRefusedDate (#46 case 11): every cursor-paged
// kind under an upstream that refuses every cursor (400): the refresh
// fails, but a 400 to a page asked for with a cursor is not the upstream
// refusing a dateTo in the future: no fallback to dateTo = now is logged
// or asked for, and the first refresh after the fault brings the unit
// back.
func TestRefusedCursorIsNoRefusedDate(t *testing.T) {
	for _, k := range collector.All {
		if k.Paging != spec.CursorPages {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			logs := &testkit.LockedBuffer{}
			e := newTestEngine(t, docsConfig("", "    collectors: ["+k.Name+"]\n"),
				mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 5, Paths: 300, ConversationsPerHour: 120}}},
				Options{Logger: bufLogger(logs)})
			e.clock.Set(time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)) // a short month to walk
			e.api.Server.SetFault(mockapi.Fault{RefusedCursors: -1})
			e.refresh()
			if h := e.health(t, k.Name, "docs"); h.Up {
				t.Error("up while every cursor is refused")
			}
			if strings.Contains(logs.String(), "refused a dateTo in the future") {
				t.Error("a refused cursor was taken for a refused dateTo")
			}
			if k.Windows != spec.Snapshot {
				for _, r := range e.api.Server.Requests() {
					if q, _ := url.ParseQuery(r.Query); asks(r, k) && strings.Contains(q.Get("dateTo"), "T") {
						t.Fatalf("a request fell back to dateTo = now: %s", r.Query)
					}
				}
			}
			e.api.Server.ClearFaults()
			e.clock.Advance(time.Hour)
			e.refresh()
			if h := e.health(t, k.Name, "docs"); !h.Up {
				t.Errorf("no recovery after the fault: %+v", h)
			}
		})
	}
}

// A sealed day dated in the future, in the state file (a clock that ran
// ahead and was set back), is never served: not at load, not after the
// next refresh, which counts what the API has.
func TestConversationsFutureSealedDayIsNotServed(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newTestEngine(t, conversationsConfig, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 3, Paths: 50, ConversationsPerHour: 6}}},
		Options{StoragePath: state})
	const series = "answered/answer"
	e.refresh()
	want := e.conversations(t)[series]
	e.Close() // writes the state file
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	planted := 0
	for _, u := range st["units"].(map[string]any) {
		for _, w := range u.(map[string]any)["windows"].(map[string]any) {
			p, ok := w.(map[string]any)["payload"].(map[string]any)
			if !ok || p["days"] == nil {
				continue
			}
			p["days"] = append(p["days"].([]any), map[string]any{"date": "2026-11-25", "final": true, "rows": 100000,
				"answered": map[string]any{"answer": 100000, "clarifying_question": 0}, "unanswered": map[string]any{"answer": 0, "clarifying_question": 0},
				"categories": []any{}, "pages": []any{}, "categories_cut": false, "pages_cut": false})
			planted++
		}
	}
	if planted != 1 {
		t.Fatalf("planted the future day in %d payloads, want 1", planted)
	}
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, b, 0o600); err != nil {
		t.Fatal(err)
	}
	e = e.restart(t, conversationsConfig)
	if got := e.conversations(t)[series]; got >= 100000 {
		t.Errorf("at load: %v answered conversations, the future day served", got)
	}
	e.refresh()
	if got := e.conversations(t)[series]; got != want {
		t.Errorf("after a refresh: %v answered conversations, want the API's %v", got, want)
	}
}

// While the month's first walk of conversations goes on (6 000 a day:
// more than the hour's budget however many rows a page holds), the days
// it finished are the counts, the unit is up and Partial says the month
// is not whole yet; a restart serves the same from the state file before
// any request (#36 case 4). (The series that shows Partial is tested in
// collector: TestDataPartialSeriesDuringTheWalk.)
func TestCountersOfFinishedDaysShowDuringTheWalk(t *testing.T) {
	t.Parallel() // a walk of thousands of pages; a test engine shares nothing
	state := filepath.Join(t.TempDir(), "state.json")
	// A small budget makes a small month a walk of several hours: two
	// pages a day, 20 requests an hour.
	cfg := strings.Replace(conversationsConfig, "    api_key_env:", "    budget_per_hour: 20\n    api_key_env:", 1)
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 50, ConversationsPerHour: 50}}},
		Options{StoragePath: state})
	check := func(when string) float64 {
		t.Helper()
		counts := e.conversations(t)
		sum := 0.0
		for _, v := range counts {
			sum += v
		}
		if len(counts) != 4 || sum == 0 {
			t.Fatalf("%s: %d conversations counts adding up to %v, want the 4 with the finished days", when, len(counts), sum)
		}
		h := e.health(t, collector.Conversations, "docs")
		if !h.Up {
			t.Errorf("%s: down, want up (the finished days are data)", when)
		}
		if !h.Partial {
			t.Errorf("%s: not partial (the month's walk goes on)", when)
		}
		return sum
	}
	e.refresh()
	walked := check("during the walk")
	requests := e.requests(mockapi.EndpointConversations)
	e = e.restart(t, cfg)
	if got := check("after a restart"); got != walked {
		t.Errorf("after a restart: %v conversations, had %v", got, walked)
	}
	if n := e.requests(mockapi.EndpointConversations); n != requests {
		t.Errorf("the restart made %d requests before any refresh", n-requests)
	}
}

// TestRateLimitMidWalkKeepsTheFinishedDays: a 429 in the middle of the
// month's first walk of conversations (another tool spent the hour) keeps
// the days already finished: the same counts, up and partial, one
// rate_limited, and the log says the data shown is served, not that
// nothing is cached.
func TestRateLimitMidWalkKeepsTheFinishedDays(t *testing.T) {
	logs := &testkit.LockedBuffer{}
	cfg := strings.Replace(conversationsConfig, "    api_key_env:", "    budget_per_hour: 20\n    api_key_env:", 1)
	e := newTestEngine(t, cfg, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 50, ConversationsPerHour: 50}}},
		Options{Logger: bufLogger(logs)})
	e.refresh()
	before := e.conversations(t)
	if h := e.health(t, collector.Conversations, "docs"); !h.Partial || len(before) == 0 {
		t.Fatalf("after the first refresh: partial %v, %d counts; want a walk under way with finished days", h.Partial, len(before))
	}
	e.api.Server.SetFault(mockapi.Fault{Status: 429, RetryAfter: "3600"})
	for range 4 {
		e.clock.Advance(15 * time.Minute)
		e.refresh()
	}
	h := e.health(t, collector.Conversations, "docs")
	if !h.Up || !h.Partial || h.FailCounts[mintlify.ReasonRateLimited] != 1 {
		t.Errorf("after the 429: up %v, partial %v, failures %v; want up and partial, one rate_limited", h.Up, h.Partial, h.FailCounts)
	}
	if got := e.conversations(t); !maps.Equal(got, before) {
		t.Errorf("after the 429 the counts are %v, were %v", got, before)
	}
	if s := logs.String(); !strings.Contains(s, "upstream rate limit hit (429); backing off, serving cached data") {
		t.Errorf("the 429 is not logged as serving the data shown:\n%s", s)
	}
}
