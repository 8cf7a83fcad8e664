package source_test

import (
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
)

// TestConversationsMonthCost: a month of some 250 conversations a day is
// walked in at most 30 requests, one a day: pages are of the documented
// largest size, 1 000 rows.
func TestConversationsMonthCost(t *testing.T) {
	site := mockapi.Site{Seed: 11, Paths: 300, ConversationsPerHour: 11}
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	got := fetchFrom(t, site, kind.Conversations, now, mockapi.Fault{})
	if got.err != nil {
		t.Fatal(got.err)
	}
	p := got.payload.(*source.ConversationsPayload)
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
