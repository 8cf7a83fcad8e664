package mintlify

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// decodeViews decodes a views page whose rows are given as raw JSON.
func decodeViews(t *testing.T, rows ...string) PageViewsPage {
	t.Helper()
	body := `{"totals":{"human":0,"ai":0,"total":0},"views":[` + strings.Join(rows, ",") + `],"hasMore":false}`
	w := wireViewsPage{Views: newRows[wireViewRow]("views", 0)}
	if err := decodeJSON([]byte(body), &w); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return w.page
}

// TestPathLabelOfRawBytes: paths are read as the bytes the API sent and
// escaped, so paths that differ only in invalid bytes stay distinct and
// control characters never reach a label value.
func TestPathLabelOfRawBytes(t *testing.T) {
	p := decodeViews(t,
		"{\"path\":\"/a\xff\",\"human\":5,\"ai\":0,\"total\":5}",
		"{\"path\":\"/a\xfe\",\"human\":7,\"ai\":0,\"total\":7}",
		`{"path":"/nul\u0000x","human":1,"ai":0,"total":1}`,
		`{"path":"/esc\u001b[2J","human":1,"ai":0,"total":1}`,
		`{"path":"/lone\ud800","human":1,"ai":0,"total":1}`,
		`{"path":"/pair\ud83d\ude00\/\"q\"\\","human":1,"ai":0,"total":1}`,
		`{"path":"/é","human":1,"ai":0,"total":1}`,
		`{"path":"","human":3,"ai":0,"total":3}`)
	want := []struct{ path, raw string }{
		{`/a\xff`, "/a\xff"},
		{`/a\xfe`, "/a\xfe"},
		{`/nul\x00x`, "/nul\x00x"},
		{`/esc\x1b[2J`, "/esc\x1b[2J"},
		{`/lone\xed\xa0\x80`, "/lone\xed\xa0\x80"},
		{"/pair\U0001F600/\"q\"\\", ""},
		{"/é", ""},
		{"", ""},
	}
	if len(p.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(p.Rows), len(want))
	}
	for i, w := range want {
		if r := p.Rows[i]; r.Path != w.path || r.Raw != w.raw {
			t.Errorf("row %d: path %q raw %q, want %q %q", i, r.Path, r.Raw, w.path, w.raw)
		}
		if got := PathLabelOK(p.Rows[i].Path); got != (w.path != "") {
			t.Errorf("row %d: PathLabelOK(%q) = %v", i, p.Rows[i].Path, got)
		}
	}
	for _, bad := range []string{"", "/nul\x00", "/\xff", "/" + strings.Repeat("x", MaxPathBytes)} {
		if PathLabelOK(bad) {
			t.Errorf("PathLabelOK(%q) = true", bad)
		}
	}
	if _, ok := PathLabel("/" + strings.Repeat("\x1b", MaxPathBytes/4)); ok {
		t.Error("a path longer than the bound once escaped is accepted")
	}
}

// TestWalkKeepsDistinctPathsApart: /a\xff (5) and /a\xfe (7) are two rows
// with their own counts; a path written like another once escaped (the
// text `\xff` and the byte 0xff) is one row with both counts and counted
// as merged; an empty path is dropped and counted; a true duplicate on a
// later page is still a duplicate.
func TestWalkKeepsDistinctPathsApart(t *testing.T) {
	w := NewWalk(Views, DateRange{}, 250)
	page0 := decodeViews(t,
		"{\"path\":\"/a\xff\",\"human\":5,\"ai\":0,\"total\":5}",
		"{\"path\":\"/a\xfe\",\"human\":7,\"ai\":0,\"total\":7}",
		`{"path":"/b\\xff","human":2,"ai":1,"total":3}`,
		`{"path":"","human":3,"ai":0,"total":3}`)
	page0.HasMore = true
	page1 := decodeViews(t,
		"{\"path\":\"/b\xff\",\"human\":4,\"ai\":0,\"total\":4}",
		"{\"path\":\"/a\xfe\",\"human\":7,\"ai\":0,\"total\":7}")
	o := WalkOptions{Keep: PathLabelOK}
	w.Add(&page0, o)
	w.Add(&page1, o)
	if !w.Done() {
		t.Fatal("walk not done")
	}
	got := map[string]Counts{}
	for _, r := range w.Rows {
		got[r.Path] = r.Counts
	}
	want := map[string]Counts{
		`/a\xff`: {Human: 5, Total: 5},
		`/a\xfe`: {Human: 7, Total: 7},
		`/b\xff`: {Human: 6, AI: 1, Total: 7},
	}
	if len(got) != len(want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for p, c := range want {
		if got[p] != c {
			t.Errorf("%s: %+v, want %+v", p, got[p], c)
		}
	}
	if w.Merged != 1 || w.Dropped != 1 || w.Duplicates != 1 {
		t.Errorf("merged %d dropped %d duplicates %d, want 1 1 1", w.Merged, w.Dropped, w.Duplicates)
	}
}

// FuzzPathLabel: whatever the API sends as a path, an accepted label is
// bounded, valid UTF-8 and free of control characters, and two different
// paths that both hold no backslash never share a label.
func FuzzPathLabel(f *testing.F) {
	for _, s := range []string{"/a\xff", "/a\xfe", "", "\x00", "\x1b[2J", "/é", "\xed\xa0\x80"} {
		f.Add(s, "/x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		la, oka := PathLabel(a)
		lb, okb := PathLabel(b)
		if oka && (len(la) > MaxPathBytes || !utf8.ValidString(la) || strings.ContainsFunc(la, unicode.IsControl) || la == "") {
			t.Fatalf("PathLabel(%q) = %q", a, la)
		}
		if oka && okb && a != b && la == lb && !strings.Contains(a+b, `\`) {
			t.Fatalf("%q and %q share the label %q", a, b, la)
		}
	})
}

// TestFeedbackPathsEscaped: feedback/by-page paths follow the same rule.
func TestFeedbackPathsEscaped(t *testing.T) {
	body := "{\"feedback\":[{\"path\":\"/a\xff\",\"thumbsUp\":1,\"thumbsDown\":0,\"code\":0,\"total\":1}," +
		`{"path":"/e\u001b]0;t\u0007","thumbsUp":1,"thumbsDown":0,"code":0,"total":1}],"hasMore":false}`
	w := wireFeedbackPage{Feedback: newRows[wireFeedbackRow]("feedback", 0)}
	if err := decodeJSON([]byte(body), &w); err != nil {
		t.Fatal(err)
	}
	if got := []string{w.page.Rows[0].Path, w.page.Rows[1].Path}; got[0] != `/a\xff` || got[1] != `/e\x1b]0;t\x07` {
		t.Errorf("paths %q", got)
	}
}
