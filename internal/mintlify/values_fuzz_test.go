package mintlify

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzListValues: whatever the upstream sends as a page URL or a category,
// what comes out is a bounded, printable label value.
func FuzzListValues(f *testing.F) {
	for _, s := range []string{"https://docs.example.com/a?b#c", "/x", "", "a\xffb", "\x00", " \t ", "é" + strings.Repeat("x", 70), "//host/path"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if p, ok := PagePath(raw); ok {
			if !strings.HasPrefix(p, "/") || len(p) > MaxPathBytes || !utf8.ValidString(p) || strings.ContainsFunc(p, unicode.IsControl) {
				t.Fatalf("PagePath(%q) = %q", raw, p)
			}
		} else if p != "" {
			t.Fatalf("PagePath(%q) refused but returned %q", raw, p)
		}
		c, _ := Category(raw)
		if c == "" || utf8.RuneCountInString(c) > MaxCategoryRunes || !utf8.ValidString(c) || strings.ContainsFunc(c, unicode.IsControl) ||
			c != strings.TrimSpace(c) || strings.Contains(c, "  ") {
			t.Fatalf("Category(%q) = %q", raw, c)
		}
	})
}

// FuzzDecodeConversations: the conversations decoder never panics, and a
// page it accepts holds only known values and bounded label values.
func FuzzDecodeConversations(f *testing.F) {
	f.Add([]byte(`{"conversations":[` + conversationJSON(`"a"`, `"/b"`, "") + `],"nextCursor":"c","hasMore":true}`))
	f.Add([]byte(`{"conversations":[],"nextCursor":null,"hasMore":false}`))
	f.Add([]byte(`{"conversations":[{"queryCategory":null}],"nextCursor":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a := conversationsAnswer{limit: 5}
		if err := decodeStreamFrom(bytes.NewReader(body), &a); err != nil {
			return
		}
		p := a.page
		if len(p.Rows) > 5 || (p.HasMore && !validCursor(p.NextCursor)) || (!p.HasMore && p.NextCursor != "") {
			t.Fatalf("page %+v", p)
		}
		for _, r := range p.Rows {
			if (r.Resolution != Answered && r.Resolution != Unanswered) || (r.ResponseType != ResponseAnswer && r.ResponseType != ResponseClarifying) ||
				r.Category == "" || utf8.RuneCountInString(r.Category) > MaxCategoryRunes || len(r.Path) > MaxPathBytes {
				t.Fatalf("row %+v", r)
			}
		}
	})
}
