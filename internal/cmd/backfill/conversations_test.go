package backfill

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestBackfillConversations: --collector.conversations writes the month
// to date of the conversations at the end of each day, as the sum of the
// month's days, walking each day once (the first day of the range walks
// the days of its month before it too, once each); none of the visitors'
// text (planted in queries, answers, sources) reaches the output, the
// journal or the messages.
func TestBackfillConversations(t *testing.T) {
	const marker = "QQvisitorTEXTqq"
	site := mockapi.Site{Seed: 21, Paths: 40, ConversationsPerHour: 9, VisitorText: marker}
	h := newBackfillHarness(t, site, nil)
	out := filepath.Join(h.dir, "conv.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-08-29", "--to", "2026-09-02", "--site-only", "--collector.conversations", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	walks := map[string]int{}
	for _, r := range h.views() {
		q, _ := url.ParseQuery(r.Query)
		if r.Endpoint == mockapi.EndpointConversations && q.Get("cursor") == "" {
			walks[q.Get("dateFrom")]++
			if to := day(q.Get("dateTo")); to != day(q.Get("dateFrom")).AddDate(0, 0, 1) {
				t.Errorf("a walk of more than a day: %s", r.Query)
			}
		}
	}
	if len(walks) != 31+2 {
		t.Errorf("%d days walked, want August and two days of September: %v", len(walks), walks)
	}
	for d, n := range walks {
		if n != 1 {
			t.Errorf("%s walked %d times", d, n)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	got := map[string]float64{}
	for _, l := range parseOM(t, body) {
		got[fmt.Sprintf("%s{%s} %d", l.name, l.labels, l.ts)] = l.value
	}
	for d := day("2026-08-29"); !d.After(day("2026-09-02")); d = d.AddDate(0, 0, 1) {
		end := d.AddDate(0, 0, 1)
		var unanswered, without float64
		for _, c := range site.Conversations(monthStart(d), end) {
			answer := c.ResponseType == nil || *c.ResponseType == mintlify.ResponseAnswer
			if c.ResolutionStatus == mintlify.Unanswered && answer {
				unanswered++
			}
			if c.ResolutionStatus == mintlify.Answered && answer && len(c.Sources) == 0 {
				without++
			}
		}
		key := fmt.Sprintf(`mintlify_assistant_conversations_total{project="proj-history",resolution="unanswered",response_type="answer"} %d`, end.Unix())
		if v, ok := got[key]; !ok || v != unanswered || v == 0 {
			t.Errorf("%s: %v (%v), want %v", d.Format(mintlify.DayLayout), v, ok, unanswered)
		}
		key = fmt.Sprintf(`mintlify_assistant_answers_without_sources_total{project="proj-history"} %d`, end.Unix())
		if v, ok := got[key]; !ok || v != without || v == 0 {
			t.Errorf("%s: answers without sources %v (%v), want %v", d.Format(mintlify.DayLayout), v, ok, without)
		}
	}
	for _, family := range []string{"mintlify_assistant_unanswered_total{category=", "mintlify_assistant_unanswered_pages_total{path=",
		"mintlify_assistant_cited_pages_total{path=", "mintlify_assistant_page_conversations_total{path="} {
		if !strings.Contains(body, family) {
			t.Errorf("no %s… in the output", family)
		}
	}
	files, _ := filepath.Glob(filepath.Join(h.dir, "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), marker) {
			t.Errorf("%s holds visitor text", f)
		}
	}
	if strings.Contains(stderr, marker) {
		t.Error("the messages hold visitor text")
	}
}
