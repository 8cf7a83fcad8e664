package collector_test

import (
	"path/filepath"
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

// While the month's first walk of conversations goes on (6 000 a day:
// more than the hour's budget however many rows a page holds), the days
// it finished are the counters, up is 1 and mintlify_data_partial says
// the month is not whole yet; a restart serves the same from the state
// file before any request (#36 case 4).
func TestCountersOfFinishedDaysShowDuringTheWalk(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("", "    collectors: [conversations]\n"),
		envOpts{statePath: state, sites: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 50, ConversationsPerHour: 250}}})
	check := func(when, out string) float64 {
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
		return sum
	}
	walked := check("during the walk", e.scrape())
	requests := e.requests(mockapi.EndpointConversations)
	e.restart()
	if got := check("after a restart", e.gather()); got != walked {
		t.Errorf("after a restart: %v conversations, had %v", got, walked)
	}
	if n := e.requests(mockapi.EndpointConversations); n != requests {
		t.Errorf("the restart made %d requests before any scrape", n-requests)
	}
}
