package exporter_test

import (
	"net/url"
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
	if e.count("mintlify_assistant_unanswered_total") == 0 || e.count("mintlify_feedback_oldest_open_timestamp_seconds") != 1 ||
		e.count("mintlify_assistant_cited_pages_total") == 0 || e.count("mintlify_assistant_page_conversations_total") == 0 {
		t.Error("no categories of unanswered conversations, no pages cited or started on, or no oldest open feedback")
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

// TestConversationsSourcesAgainstSimulator: the month's answers without
// a source, pages cited (each once a conversation, by the path of an
// http(s) URL, any host) and conversations by starting page are those of
// the simulator's rows, counted here on their own; the URLs of no
// countable path are dropped, and the cited pages hold no query string,
// fragment or title.
func TestConversationsSourcesAgainstSimulator(t *testing.T) {
	site := mockapi.Site{Seed: 21, Paths: 12}
	e := newEnv(t, oneCollector("conversations"), envOpts{sites: map[string]mockapi.Site{"proj-docs": site}})
	out := e.scrape()
	var without, dropped float64
	cited, started := map[string]float64{}, map[string]float64{}
	month := time.Date(epoch.Year(), epoch.Month(), 1, 0, 0, 0, 0, time.UTC)
	for _, c := range site.Conversations(month, epoch) {
		if c.ResolutionStatus == "answered" && (c.ResponseType == nil || *c.ResponseType == "answer") && len(c.Sources) == 0 {
			without++
		}
		if c.PageURL != nil {
			started[strings.TrimPrefix(*c.PageURL, mockapi.SiteURL)]++
		}
		paths := map[string]bool{}
		for _, s := range c.Sources {
			u, err := url.Parse(s.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				dropped++
				continue
			}
			paths[u.Path] = true
		}
		for p := range paths {
			cited[p]++
		}
	}
	if without == 0 || dropped == 0 || len(cited) == 0 || len(started) == 0 {
		t.Fatalf("the simulator served no rows of a kind: %v without, %v dropped, %d cited, %d started", without, dropped, len(cited), len(started))
	}
	if got := mustValue(t, out, `mintlify_assistant_answers_without_sources_total{project="docs"}`); got != without {
		t.Errorf("answers without sources %v, want %v", got, without)
	}
	if got := mustValue(t, out, `mintlify_assistant_conversations_dropped_rows{project="docs",reason="source_url",window="month"}`); got != dropped {
		t.Errorf("source URLs dropped %v, want %v", got, dropped)
	}
	for family, want := range map[string]map[string]float64{"mintlify_assistant_cited_pages_total": cited, "mintlify_assistant_page_conversations_total": started} {
		if n := e.count(family); n != len(want) {
			t.Errorf("%d series of %s, want %d", n, family, len(want))
		}
		for p, n := range want {
			if got := mustValue(t, out, family+`{path="`+p+`",project="docs"}`); got != n {
				t.Errorf("%s of %s: %v, want %v", family, p, got, n)
			}
		}
	}
}
