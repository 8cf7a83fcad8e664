package collector

import (
	"fmt"
	"testing"
)

// TestConversationsSamples: the month is the sum of its days; the top
// lists keep the most counted (TopN), the path filter drops pages, and
// the truncation flags say a list was cut, this month or on a day; the
// rows the days' walks dropped are summed by reason.
func TestConversationsSamples(t *testing.T) {
	code, _ := fetchedOf(Conversations)
	got := code.Samples(examples[Conversations], Settings{Keep: func(p string) bool { return p != "/hidden" }, TopN: 1})
	want := []Sample{
		{Family: "mintlify_assistant_conversations_total", Labels: []Label{{Name: "resolution", Value: "answered"}, {Name: "response_type", Value: "answer"}}, Value: 5},
		{Family: "mintlify_assistant_conversations_total", Labels: []Label{{Name: "resolution", Value: "answered"}, {Name: "response_type", Value: "clarifying_question"}}, Value: 1},
		{Family: "mintlify_assistant_conversations_total", Labels: []Label{{Name: "resolution", Value: "unanswered"}, {Name: "response_type", Value: "answer"}}, Value: 4},
		{Family: "mintlify_assistant_conversations_total", Labels: []Label{{Name: "resolution", Value: "unanswered"}, {Name: "response_type", Value: "clarifying_question"}}, Value: 1},
		{Family: "mintlify_assistant_answers_without_sources_total", Value: 2},
		{Family: "mintlify_assistant_conversations_dropped_rows", Labels: []Label{{Name: "reason", Value: "duplicate"}}, Value: 3},
		{Family: "mintlify_assistant_conversations_dropped_rows", Labels: []Label{{Name: "reason", Value: "out_of_range"}}, Value: 2},
		{Family: "mintlify_assistant_conversations_dropped_rows", Labels: []Label{{Name: "reason", Value: "page_url"}}, Value: 1},
		{Family: "mintlify_assistant_conversations_dropped_rows", Labels: []Label{{Name: "reason", Value: "source_url"}}, Value: 5},
		{Family: "mintlify_assistant_unanswered_truncated", Labels: []Label{{Name: "list", Value: "category"}}, Value: 1},
		{Family: "mintlify_assistant_unanswered_total", Labels: []Label{{Name: "category", Value: "uncategorized"}}, Value: 3},
		{Family: "mintlify_assistant_unanswered_truncated", Labels: []Label{{Name: "list", Value: "path"}}, Value: 1},
		{Family: "mintlify_assistant_unanswered_pages_total", Labels: []Label{{Name: "path", Value: "/a"}}, Value: 2},
		{Family: "mintlify_assistant_pages_truncated", Labels: []Label{{Name: "list", Value: "cited"}}, Value: 1},
		{Family: "mintlify_assistant_cited_pages_total", Labels: []Label{{Name: "path", Value: "/a"}}, Value: 3},
		{Family: "mintlify_assistant_pages_truncated", Labels: []Label{{Name: "list", Value: "started"}}, Value: 1},
		{Family: "mintlify_assistant_page_conversations_total", Labels: []Label{{Name: "path", Value: "/a"}}, Value: 4},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	// With room for every name and no day cut, nothing is truncated.
	one := &ConversationsPayload{Days: []ConversationsDay{{Date: "2026-11-01", Unanswered: ConversationsByType{Answer: 1},
		Categories: []NamedCount{{"billing", 1}}, Pages: []NamedCount{{"/a", 1}}}}}
	for _, s := range code.Samples(one, Settings{TopN: 5}) {
		if (s.Family == "mintlify_assistant_unanswered_truncated" || s.Family == "mintlify_assistant_pages_truncated") && s.Value != 0 {
			t.Errorf("%v: truncated", s)
		}
	}
}

// TestFeedbackBacklogSamples: every open status and source as stored,
// the rows the walk dropped by reason, and the oldest entry's time,
// absent when none is open.
func TestFeedbackBacklogSamples(t *testing.T) {
	code, _ := fetchedOf(FeedbackBacklog)
	got := code.Samples(examples[FeedbackBacklog], Settings{})
	want := []Sample{
		{Family: "mintlify_feedback_open", Labels: []Label{{Name: "source", Value: "contextual"}, {Name: "status", Value: "pending"}}, Value: 2},
		{Family: "mintlify_feedback_open", Labels: []Label{{Name: "source", Value: "agent"}, {Name: "status", Value: "in_progress"}}, Value: 1},
		{Family: "mintlify_feedback_open_dropped_rows", Labels: []Label{{Name: "reason", Value: "duplicate"}}, Value: 1},
		{Family: "mintlify_feedback_open_dropped_rows", Labels: []Label{{Name: "reason", Value: "out_of_range"}}, Value: 0},
		{Family: "mintlify_feedback_oldest_open_timestamp_seconds", Value: 1788220800},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	empty := &FeedbackBacklogPayload{Backlog: OpenFeedback{Open: openList(nil)}}
	got = code.Samples(empty, Settings{})
	if len(got) != 10 || got[7].Family != "mintlify_feedback_open" || got[len(got)-1].Family != "mintlify_feedback_open_dropped_rows" {
		t.Errorf("an empty backlog: %v, want 8 zero counts, 2 of dropped rows and no oldest", got)
	}
}
