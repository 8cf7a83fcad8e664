package exporter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

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
