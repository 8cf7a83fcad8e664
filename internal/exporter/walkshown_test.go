package exporter_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// conversationsTotal is the sum of the month's conversations counters in
// out, and how many of their series there are.
func conversationsTotal(out string) (sum float64, series int) {
	for _, res := range []string{"answered", "unanswered"} {
		for _, typ := range []string{"answer", "clarifying_question"} {
			if v, ok := value(out, `mintlify_assistant_conversations_total{project="docs",resolution="`+res+`",response_type="`+typ+`"}`); ok {
				sum += v
				series++
			}
		}
	}
	return sum, series
}

// TestDataPartialSeriesDuringTheWalk: while the month's first walk of
// conversations goes on (a key of 20 requests an hour against a page a day), the
// days it finished are the counters (the 4 series), up is 1 and
// mintlify_data_partial is 1, after a restart too. (What the engine
// shows and keeps is TestCountersOfFinishedDaysShowDuringTheWalk, in
// internal/engine.)
func TestDataPartialSeriesDuringTheWalk(t *testing.T) {
	t.Parallel() // a walk of thousands of pages; an env shares nothing
	state := filepath.Join(t.TempDir(), "state.json")
	// A key of 20 requests an hour against 20 days of 1 000 a day (a
	// page a day): the month takes more than the first refresh.
	cfg := strings.Replace(docsConfig("", "    collectors: [conversations]\n"),
		"api_key_env: TEST_MINTLIFY_KEY\n", "api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 20\n", 1)
	e := newEnv(t, cfg,
		envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 50, ConversationsPerHour: 40}}})
	check := func(when, out string) {
		t.Helper()
		sum, series := conversationsTotal(out)
		if series != 4 || sum == 0 {
			t.Fatalf("%s: %d conversations series adding up to %v, want the 4 with the finished days", when, series, sum)
		}
		if v := mustValue(t, out, `mintlify_up{collector="conversations",project="docs"}`); v != 1 {
			t.Errorf("%s: up %v, want 1 (the finished days are data)", when, v)
		}
		if v := mustValue(t, out, `mintlify_data_partial{collector="conversations",project="docs"}`); v != 1 {
			t.Errorf("%s: mintlify_data_partial %v, want 1 (the month's walk goes on)", when, v)
		}
	}
	check("during the walk", e.scrape())
	e.restart()
	check("after a restart", e.gather())
}

// TestBacklogFirstWalkSeries: during the first walk of a feedback backlog
// larger than the hour's budget, up and mintlify_data_partial are 1 and no
// mintlify_feedback_open series is shown, since no count is complete.
// (What the engine does is TestBacklogFirstWalkIsUpWithNoCount.)
func TestBacklogFirstWalkSeries(t *testing.T) {
	cfg := strings.Replace(docsConfig("", "    collectors: [feedback-backlog]\n"),
		"api_key_env: TEST_MINTLIFY_KEY\n", "api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 40\n    reserve: 0\n", 1)
	e := newEnv(t, cfg, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 2, Paths: 40, FeedbackPerDay: 400}}})
	out := e.scrape()
	if v := mustValue(t, out, `mintlify_up{collector="feedback-backlog",project="docs"}`); v != 1 {
		t.Errorf("up %v during the first walk, want 1 (nothing failed)", v)
	}
	if v := mustValue(t, out, `mintlify_data_partial{collector="feedback-backlog",project="docs"}`); v != 1 {
		t.Errorf("mintlify_data_partial %v during the first walk, want 1", v)
	}
	if strings.Contains(out, "mintlify_feedback_open{") {
		t.Errorf("a count is shown before the first walk ended:\n%s", out)
	}
}
