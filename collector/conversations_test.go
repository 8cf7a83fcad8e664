package collector_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// TestConversationsMonthCost: a month of some 250 conversations a day is
// walked in at most 30 requests, one a day: pages are of the documented
// largest size, 1 000 rows.
func TestConversationsMonthCost(t *testing.T) {
	site := mockapi.Site{Seed: 11, Paths: 300, ConversationsPerHour: 11}
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	got := fetchFrom(t, site, collector.Conversations, now, mockapi.Fault{})
	if got.err != nil {
		t.Fatal(got.err)
	}
	p := got.payload.(*collector.ConversationsPayload)
	rows := 0
	for _, d := range p.Days {
		rows += d.Rows
	}
	if len(p.Days) != 30 || rows < 30*200 {
		t.Fatalf("%d days of %d conversations, want 30 of about 250 a day", len(p.Days), rows)
	}
	if got.requests > 30 {
		t.Errorf("%d requests for a month of %d conversations, want at most 30", got.requests, rows)
	}
	if mintlify.ConversationsPageSize != mintlify.MaxConversationsLimit {
		t.Errorf("page size %d, want the documented largest, %d", mintlify.ConversationsPageSize, mintlify.MaxConversationsLimit)
	}
}

// TestConversationsRewalksADayNotSealed: a stored day marked final that
// could not be final yet (today, after a clock that ran ahead was set
// back) is walked again, not trusted: the month counts what the API has.
func TestConversationsRewalksADayNotSealed(t *testing.T) {
	now := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	well := fetchFrom(t, cursorSite, collector.Conversations, now, mockapi.Fault{})
	if well.err != nil {
		t.Fatal(well.err)
	}
	old := *well.payload.(*collector.ConversationsPayload)
	old.Days = slices.Clone(old.Days)
	today := &old.Days[len(old.Days)-1]
	if today.Date != "2026-11-03" || today.Final {
		t.Fatalf("the last day %+v, want today not final", *today)
	}
	*today = collector.ConversationsDay{Date: today.Date, Final: true, Rows: 1, Answered: collector.ConversationsByType{Answer: 1}}
	got := fetchAfter(t, cursorSite, collector.Conversations, now, mockapi.Fault{}, &old)
	if got.err != nil {
		t.Fatal(got.err)
	}
	row, _ := collector.Lookup(collector.Conversations)
	code := row.Fetched
	settings := spec.Settings{TopN: 20}
	if s, want := code.Samples(got.payload, settings), code.Samples(well.payload, settings); !reflect.DeepEqual(s, want) {
		t.Errorf("samples after a day wrongly final\n%v\nwant\n%v", s, want)
	}
	if got.requests == 0 {
		t.Error("no request: the day wrongly final was trusted")
	}
}

// TestPageConversationsCoverUnansweredPages: every page listed as
// unanswered is also listed with all its conversations, however few, so
// its unanswered share is one division; with 300 pages a day holds more
// than its 100 kept, and a short top list leaves most unanswered pages
// out of the top pages by conversations.
func TestPageConversationsCoverUnansweredPages(t *testing.T) {
	now := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	got := fetchFrom(t, cursorSite, collector.Conversations, now, mockapi.Fault{})
	if got.err != nil {
		t.Fatal(got.err)
	}
	row, _ := collector.Lookup(collector.Conversations)
	samples := row.Fetched.Samples(got.payload, spec.Settings{TopN: 5})
	unanswered, started := map[string]float64{}, map[string]float64{}
	for _, s := range samples {
		switch s.Family {
		case "mintlify_assistant_unanswered_pages_total":
			unanswered[s.Labels[0].Value] = s.Value
		case "mintlify_assistant_page_conversations_total":
			started[s.Labels[0].Value] = s.Value
		}
	}
	if len(unanswered) != 5 {
		t.Fatalf("%d unanswered pages listed, want the top 5", len(unanswered))
	}
	for path, n := range unanswered {
		if started[path] < n {
			t.Errorf("page %s: %g unanswered, %g conversations listed", path, n, started[path])
		}
	}
	if len(started) > 10 {
		t.Errorf("%d pages by conversations, want at most the top 5 and the 5 unanswered", len(started))
	}
}
