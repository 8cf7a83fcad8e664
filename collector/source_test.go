package collector

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// examples are a payload with data of each kind here; a new kind adds
// one.
var examples = map[string]Payload{
	Feedback: &FeedbackPayload{Truncated: true, Pages: []FeedbackPage{
		{Path: "/a", ThumbsUp: 3, ThumbsDown: 1, Code: 2}, {Path: "/a", ThumbsUp: 9}, {Path: "/hidden", ThumbsUp: 1}}},
	Searches:  &SearchesPayload{Total: 40, Terms: []SearchTerm{{Query: "Deploy  Now", Hits: 7, CTR: 1.5}, {Query: "deploy now", Hits: 2}, {Query: "b", Hits: 1}}},
	Assistant: &AssistantPayload{Web: 5, API: 2, Other: 1},
	Conversations: &ConversationsPayload{Days: []ConversationsDay{
		{Date: "2026-11-01", Final: true, Rows: 9, Answered: ConversationsByType{Answer: 5, Clarifying: 1}, Unanswered: ConversationsByType{Answer: 2, Clarifying: 1},
			Categories: []NamedCount{{"billing", 2}, {"uncategorized", 1}}, Pages: []NamedCount{{"/a", 2}, {"/hidden", 1}}, Duplicates: 3,
			WithoutSources: 2, Cited: []NamedCount{{"/hidden", 4}, {"/a", 3}, {"/c", 1}}, Started: []NamedCount{{"/a", 4}, {"/hidden", 1}}, DroppedSources: 1},
		{Date: "2026-11-02", Rows: 2, Unanswered: ConversationsByType{Answer: 2},
			Categories: []NamedCount{{"uncategorized", 2}}, Pages: []NamedCount{{"/b", 1}}, PagesCut: true, OutOfRange: 2,
			Cited: []NamedCount{{"/c", 2}}, Started: []NamedCount{{"/b", 2}}, StartedCut: true, DroppedPages: 1, DroppedSources: 4}}},
	PageViews: &WalkPayload{Hint: 1, Data: &mintlify.Walk{Endpoint: mintlify.Views, PageSize: 250, Range: mintlify.DateRange{From: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Days: true}, Requests: 1, Last: 0, Next: 1, Totals: mintlify.Counts{Human: 9, AI: 3, Total: 13},
		Rows: []mintlify.PageViewRow{{Path: "/a", Counts: mintlify.Counts{Human: 5, AI: 2, Total: 7}}, {Path: "/hidden", Counts: mintlify.Counts{Human: 4, AI: 1, Total: 5}}}}},
	Visitors: &WalkPayload{Walk: &mintlify.Walk{Endpoint: mintlify.Visitors, PageSize: 250, Range: mintlify.DateRange{From: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}, Requests: 1, Last: -1, Next: 1, Totals: mintlify.Counts{Human: 4, AI: 2, Total: 5},
		Rows: []mintlify.PageViewRow{{Path: "/a", Counts: mintlify.Counts{Human: 3, AI: 1, Total: 4}}}}},
	FeedbackBacklog: &FeedbackBacklogPayload{Backlog: OpenFeedback{Entries: 3, Duplicates: 1, Oldest: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		Open: []FeedbackOpen{{"pending", "contextual", 2}, {"in_progress", "agent", 1}}}},
}

// TestSamplesAreOfTheTable: every kind here turns a payload into samples
// of its own row's gauge families, with the labels of the family (less
// project and window), each series once.
func TestSamplesAreOfTheTable(t *testing.T) {
	for _, k := range All {
		name := k.Name
		code, _ := fetchedOf(name)
		p, ok := examples[name]
		if !ok {
			t.Errorf("%s: no example payload", name)
			continue
		}
		samples := code.Samples(p, Settings{Keep: func(path string) bool { return path != "/hidden" }, TopN: 1})
		if len(samples) == 0 {
			t.Errorf("%s: no samples", name)
		}
		seen := map[string]bool{}
		for _, s := range samples {
			i := slices.IndexFunc(k.Families, func(f spec.Family) bool { return f.Name == s.Family })
			// A month-only kind's samples name its counters.
			if i < 0 || k.Families[i].Counter != (k.Windows == spec.MonthOnly && !k.Families[i].Month) {
				t.Errorf("%s: sample of %q, not a gauge family of its row (or a counter of a month-only row)", name, s.Family)
				continue
			}
			var labels []string
			for _, l := range s.Labels {
				labels = append(labels, l.Name)
			}
			want := slices.DeleteFunc(slices.Clone(k.Families[i].Labels), func(l string) bool { return l == "project" || l == "window" })
			if !slices.Equal(labels, want) {
				t.Errorf("%s: %s has labels %v, want %v", name, s.Family, labels, want)
			}
			id := s.Family + "|" + fmt.Sprint(s.LabelValues(k.Families[i], "p", "w"))
			if seen[id] {
				t.Errorf("%s: %s twice", name, id)
			}
			seen[id] = true
		}
	}
}

// TestFeedbackSamples: a path kept once, its first row; filtered paths
// left out; the truncation flag.
func TestFeedbackSamples(t *testing.T) {
	code, _ := fetchedOf(Feedback)
	got := code.Samples(examples[Feedback], Settings{Keep: func(path string) bool { return path != "/hidden" }})
	want := []Sample{
		{Family: "mintlify_page_feedback_truncated", Value: 1},
		{Family: "mintlify_page_feedback", Labels: []Label{{Name: "kind", Value: "thumbs_up"}, {Name: "path", Value: "/a"}}, Value: 3},
		{Family: "mintlify_page_feedback", Labels: []Label{{Name: "kind", Value: "thumbs_down"}, {Name: "path", Value: "/a"}}, Value: 1},
		{Family: "mintlify_page_feedback", Labels: []Label{{Name: "kind", Value: "code_snippet"}, {Name: "path", Value: "/a"}}, Value: 2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// TestSearchesSamples: terms sanitised, two that sanitise alike keep the
// first, at most TopN, the ratio capped at 1.
func TestSearchesSamples(t *testing.T) {
	code, _ := fetchedOf(Searches)
	got := code.Samples(examples[Searches], Settings{TopN: 1})
	want := []Sample{
		{Family: "mintlify_searches", Value: 40},
		{Family: "mintlify_search_hits", Labels: []Label{{Name: "query", Value: "deploy now"}}, Value: 7},
		{Family: "mintlify_search_click_through_ratio", Labels: []Label{{Name: "query", Value: "deploy now"}}, Value: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// TestPayloadsAreTagged: every field of every kind's payload, nested
// types included, has a json tag, so the state file's and the journal's
// format is written down in the code and a renamed Go field cannot
// silently change it. An embedded struct without a tag is flattened by
// encoding/json: its own fields must have tags then, wherever it is
// declared.
func TestPayloadsAreTagged(t *testing.T) {
	own := reflect.TypeOf(Sample{}).PkgPath()
	var check func(name string, ty reflect.Type, embedded bool, seen map[reflect.Type]bool)
	check = func(name string, ty reflect.Type, embedded bool, seen map[reflect.Type]bool) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || (ty.PkgPath() != own && !embedded) || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			if !f.IsExported() {
				continue // encoding/json does not write it
			}
			tag, ok := f.Tag.Lookup("json")
			flat := f.Anonymous && !ok
			if !flat && (!ok || tag == "") {
				t.Errorf("%s: field %s.%s has no json tag", name, ty.Name(), f.Name)
			}
			check(name, f.Type, flat, seen)
		}
	}
	n := 0
	for _, k := range All {
		if code, ok := fetchedOf(k.Name); ok {
			check(k.Name, reflect.TypeOf(code.Empty()), false, map[reflect.Type]bool{})
			n++
		}
	}
	if n == 0 {
		t.Fatal("no kind fetched whole: nothing checked")
	}
}
