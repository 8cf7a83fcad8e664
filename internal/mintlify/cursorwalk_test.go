package mintlify

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// cursorDay is the range of the walks below.
var cursorDay = DateRange{From: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Days: true}

// convPage is a page of conversations with ids ids, at hour h of
// cursorDay, leading to next (none when "").
func convPage(next string, ids ...string) *CursorPage[Conversation] {
	p := &CursorPage[Conversation]{NextCursor: next, HasMore: next != "", endpoint: "conversations"}
	for _, id := range ids {
		p.Rows = append(p.Rows, Conversation{ID: id, Time: cursorDay.From.Add(time.Hour)})
	}
	return p
}

func idsOf(rows []Conversation) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

// TestFollowCountsEachRowOnce: rows are returned once across the walk,
// a row outside the range not at all; each is counted as such, and a
// page served twice (no new id, a new cursor) is skipped.
func TestFollowCountsEachRowOnce(t *testing.T) {
	var w CursorWalk
	outside := Conversation{ID: "x", Time: cursorDay.To}
	before := Conversation{ID: "y", Time: cursorDay.From.Add(-time.Millisecond)}
	p1 := convPage("c1", "a", "b")
	p1.Rows = append(p1.Rows, outside, before)
	var got []string
	for i, p := range []*CursorPage[Conversation]{p1, convPage("c1", "b", "c"), convPage("c2", "b", "c"), convPage("", "c", "d")} {
		rows, done, err := Follow(&w, cursorDay, 10, p)
		if err != nil || done != (i == 3) {
			t.Fatalf("page %d: done %v, %v", i, done, err)
		}
		got = append(got, idsOf(rows)...)
	}
	if fmt.Sprint(got) != "[a b c d]" || w.Duplicates != 4 || w.OutOfRange != 2 || w.Pages != 4 {
		t.Errorf("rows %v, duplicates %d, out of range %d, pages %d", got, w.Duplicates, w.OutOfRange, w.Pages)
	}
	if w.Seen != nil || w.Followed != nil || w.Cursor != "" {
		t.Errorf("a done walk keeps %d ids, %d cursors, cursor %q", len(w.Seen), len(w.Followed), w.Cursor)
	}
}

// TestFollowEndsALoop: a cursor that repeats or cycles, or pages that
// bring nothing new, end the walk as a bad response within a page or two
// of the loop.
func TestFollowEndsALoop(t *testing.T) {
	for name, pages := range map[string][]*CursorPage[Conversation]{
		"repeating cursor":  {convPage("A", "a"), convPage("A", "b"), convPage("A", "b")},
		"cycling cursor":    {convPage("A", "a"), convPage("B", "b"), convPage("A", "c"), convPage("B", "b")},
		"nothing new twice": {convPage("A", "a"), convPage("B", "a"), convPage("C", "a")},
		"empty pages":       {convPage("A"), convPage("B")},
	} {
		t.Run(name, func(t *testing.T) {
			var w CursorWalk
			for i, p := range pages {
				_, done, err := Follow(&w, cursorDay, 100, p)
				if i < len(pages)-1 {
					if err != nil || done {
						t.Fatalf("page %d: %v, done %v", i, err, done)
					}
					continue
				}
				var re *ResponseError
				if !errors.As(err, &re) || Classify(err).Reason() != ReasonBadResponse {
					t.Fatalf("last page: %v, want a bad response", err)
				}
			}
		})
	}
}

// TestFollowBounds: a walk ends with an error at its page cap.
func TestFollowBounds(t *testing.T) {
	var w CursorWalk
	if _, _, err := Follow(&w, cursorDay, 2, convPage("A", "a")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Follow(&w, cursorDay, 2, convPage("B", "b")); err == nil {
		t.Error("a walk past its page cap went on")
	}
}

// TestFollowResumes: a walk saved between two pages (as a kind's payload
// keeps it) and loaded again still knows the ids and cursors it read.
func TestFollowResumes(t *testing.T) {
	var w CursorWalk
	for _, p := range []*CursorPage[Conversation]{convPage("A", "a"), convPage("B", "b")} {
		if _, _, err := Follow(&w, cursorDay, 10, p); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var back CursorWalk
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Cursor != "B" {
		t.Fatalf("resumed at %q, want B", back.Cursor)
	}
	rows, _, err := Follow(&back, cursorDay, 10, convPage("C", "b", "c"))
	if err != nil || fmt.Sprint(idsOf(rows)) != "[c]" || back.Duplicates != 1 {
		t.Errorf("resumed walk: rows %v, duplicates %d, %v", idsOf(rows), back.Duplicates, err)
	}
	if _, _, err := Follow(&back, cursorDay, 10, convPage("A", "a")); err == nil {
		t.Error("a resumed walk forgot the cursor it followed before it was saved")
	}
	var old CursorWalk // a walk saved by 0.1.0: its cursor alone
	if err := json.Unmarshal([]byte(`{"cursor":"A"}`), &old); err != nil || old.Cursor != "A" {
		t.Errorf("old walk: %+v, %v", old, err)
	}
}

// TestCursorQueryRefusesBadArguments: each cursor-paged endpoint's call
// refuses, before any request, an empty project, a limit out of range, a
// cursor it would not send and an open range, naming the endpoint.
func TestCursorQueryRefusesBadArguments(t *testing.T) {
	day := cursorDay
	for _, tc := range []struct {
		name, project string
		r             DateRange
		limit         int
		cursor, want  string
	}{
		{"empty project", "", day, 10, "", "empty project id"},
		{"limit 0", "p", day, 0, "", "limit 0 out of range 1..1000"},
		{"limit over", "p", day, 1001, "", "limit 1001 out of range 1..1000"},
		{"cursor with a space", "p", day, 10, "a b", "unusable cursor"},
		{"cursor too long", "p", day, 10, strings.Repeat("a", maxCursorBytes+1), "unusable cursor"},
		{"open range", "p", DateRange{From: day.From}, 10, "", "date range needs both From and To"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cursorQuery("conversations", tc.project, tc.r, tc.limit, 1000, tc.cursor)
			if want := "mintlify conversations: " + tc.want; err == nil || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
	q, err := cursorQuery("conversations", "p", day, 10, 1000, "abc")
	if err != nil || q.Get("limit") != "10" || q.Get("cursor") != "abc" {
		t.Errorf("good arguments: %v, %v", q, err)
	}
	c := &Client{} // refused before any request: no HTTP client needed
	if _, err := c.Conversations(t.Context(), "", day, 10, ""); err == nil || !strings.Contains(err.Error(), "mintlify conversations: empty project id") {
		t.Errorf("Conversations: %v", err)
	}
	if _, err := c.FeedbackEntries(t.Context(), "p", FeedbackFilter{Range: day}, 0, ""); err == nil || !strings.Contains(err.Error(), "mintlify feedback_entries: limit 0") {
		t.Errorf("FeedbackEntries: %v", err)
	}
}
