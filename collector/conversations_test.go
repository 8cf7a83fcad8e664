package collector_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// conversationWalks counts the walks of each day of the conversations
// endpoint: its requests without a cursor (a walk's first page), by
// dateFrom; pages counts all its requests.
func (e *env) conversationWalks() (walks map[string]int, pages int) {
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

// A finished day of conversations is walked once: across two days of
// refreshes and a restart in between, each day before the first refresh's
// is walked once, that day itself until its grace ends, and the restart
// serves the month's counters at once and walks no finished day again.
func TestConversationsFinishedDaysAreWalkedOnce(t *testing.T) {
	t.Parallel() // hours of simulated work; an env shares nothing (see newEnv)
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("  min_refresh_interval: 30m\n  max_refresh_interval: 1h\n", "    collectors: [conversations]\n"),
		envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 3, Paths: 50, ConversationsPerHour: 6}}})
	const series = `mintlify_assistant_conversations_total{project="docs",resolution="unanswered",response_type="answer"}`
	first := e.scrape() // 2026-11-20 12:00: the 1st to the 20th
	walks, pages := e.conversationWalks()
	if len(walks) != 20 {
		t.Fatalf("the first refresh walked %d days, want the 20 of the month to date: %v", len(walks), walks)
	}
	before := mustValue(t, first, series)
	if before == 0 {
		t.Fatal("no unanswered conversations counted")
	}
	// Through the rest of the 20th, past midnight and the grace, with a
	// restart on the 21st at 01:00.
	for e.clock.Now().Before(time.Date(2026, 11, 21, 1, 0, 0, 0, time.UTC)) {
		e.clock.Advance(30 * time.Minute)
		e.scrape()
	}
	e.restart()
	if got := mustValue(t, e.gather(), series); got < before {
		t.Fatalf("after the restart, before any refresh: %v unanswered, had %v", got, before)
	}
	for e.clock.Now().Before(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)) {
		e.clock.Advance(30 * time.Minute)
		e.scrape()
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
	e.scrape()
	reqs := e.api.Server.Requests()[finalAt:]
	for _, r := range reqs {
		q, _ := url.ParseQuery(r.Query)
		if r.Endpoint == mockapi.EndpointConversations && q.Get("dateFrom") != "2026-11-21" {
			t.Errorf("a refresh on the 21st at 13:00 asked for %s", r.Query)
		}
	}
	t.Logf("%d pages for the first refresh, %d in all", pages, total)
	e.expectWithinBudget()
}

// No visitor text reaches /metrics, the state file or the logs: a marker
// planted in every query, answer, source, comment and contact of the
// simulated site appears nowhere, while both collectors export data.
func TestGapsCollectorsKeepNoVisitorText(t *testing.T) {
	const marker = "XXplantedVisitorTextXX"
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("", "    collectors: [conversations, feedback-backlog]\n"),
		envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 5, Paths: 200, VisitorText: marker}}})
	out := e.scrape()
	e.clock.Advance(2 * time.Hour)
	out += e.scrape()
	e.exp.Close() // writes the state file
	for _, series := range []string{
		`mintlify_assistant_conversations_total{project="docs",resolution="unanswered",response_type="answer"}`,
		`mintlify_feedback_open{project="docs",source="contextual",status="pending"}`,
	} {
		if mustValue(t, out, series) == 0 {
			t.Errorf("%s is 0: the test would prove nothing", series)
		}
	}
	if e.count("mintlify_assistant_unanswered_total") == 0 || e.count("mintlify_feedback_oldest_open_timestamp_seconds") != 1 {
		t.Error("no categories of unanswered conversations, or no oldest open feedback")
	}
	b, err := os.ReadFile(state)
	if err != nil || len(b) == 0 {
		t.Fatalf("state file: %v", err)
	}
	for what, text := range map[string]string{"/metrics": out, "the state file": string(b), "the logs": e.logs.String()} {
		if strings.Contains(text, marker) {
			t.Errorf("%s holds visitor text", what)
		}
	}
	if !strings.Contains(string(b), `"days"`) {
		t.Error("the state file keeps no days of conversations")
	}
}

// A cursor that repeats ends each cursor-paged collector's walk within a
// few requests as a failed refresh of reason bad_response (up 0), not at
// the page cap; the counts a walk dropped show in their own gauge.
func TestCursorLoopIsABadResponse(t *testing.T) {
	e := newEnv(t, docsConfig("", "    collectors: [conversations, feedback-backlog]\n"),
		envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 5, Paths: 300, ConversationsPerHour: 120}}})
	e.api.Server.SetFault(mockapi.Fault{RepeatingCursor: true})
	out := e.scrape()
	for _, c := range []struct{ collector, endpoint string }{
		{"conversations", mockapi.EndpointConversations},
		{"feedback-backlog", mockapi.EndpointFeedbackEntries},
	} {
		if up := mustValue(t, out, `mintlify_up{collector="`+c.collector+`",project="docs"}`); up != 0 {
			t.Errorf("%s: up %v on a looping cursor", c.collector, up)
		}
		if n := mustValue(t, out, `mintlify_refresh_failures_total{collector="`+c.collector+`",project="docs",reason="bad_response"}`); n != 1 {
			t.Errorf("%s: %v failures of reason bad_response, want 1", c.collector, n)
		}
		if n := e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == c.endpoint }); n > 4 {
			t.Errorf("%s: %d requests on a looping cursor, want at most 4", c.collector, n)
		}
	}
}

// A sealed day dated in the future, in the state file (a clock that ran
// ahead and was set back), is never served: not at load, not after the
// next refresh, which counts what the API has.
func TestConversationsFutureSealedDayIsNotServed(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("", "    collectors: [conversations]\n"),
		envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 3, Paths: 50, ConversationsPerHour: 6}}})
	const series = `mintlify_assistant_conversations_total{project="docs",resolution="answered",response_type="answer"}`
	want := mustValue(t, e.scrape(), series)
	e.exp.Close() // writes the state file
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
	e.restart()
	if got, ok := value(e.gather(), series); ok && got >= 100000 {
		t.Errorf("at load: %v answered conversations, the future day served", got)
	}
	if got := mustValue(t, e.scrape(), series); got != want {
		t.Errorf("after a refresh: %v answered conversations, want the API's %v", got, want)
	}
}
