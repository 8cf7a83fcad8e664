package mintlify

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// secretText stands for what a visitor typed: it must never reach a
// decoded value.
const secretText = "VISITOR-TEXT-7f3a"

func conversationJSON(category, pageURL, responseType string) string {
	rt := ""
	if responseType != "" {
		rt = `"responseType":"` + responseType + `",`
	}
	return `{"id":"01JD0000000000000000000000","timestamp":"2026-11-01T10:00:00.123Z",` +
		`"query":"` + secretText + `","response":"` + secretText + `",` + rt +
		`"sources":[{"title":"` + secretText + `","url":"https://x/p?q=` + secretText + `#` + secretText + `"}],` +
		`"resolutionStatus":"unanswered","queryCategory":` + category + `,"pageUrl":` + pageURL + `}`
}

func TestConversationsDecodesCountsOnly(t *testing.T) {
	var got url.Values
	var gotPath string
	long := `"` + strings.Repeat("é", MaxCategoryRunes+5) + `"`
	rows := []string{
		conversationJSON(`"Authentication  setup"`, `"https://docs.example.com/docs/auth?q=`+secretText+`#x"`, "answer"),
		conversationJSON(`null`, `null`, ""),
		conversationJSON(long, `"/guides/start"`, "clarifying_question"),
		conversationJSON(`"  "`, `"https://docs.example.com/`+strings.Repeat("a", MaxPathBytes)+`"`, ""),
	}
	body := `{"conversations":[` + strings.Join(rows, ",") + `],"nextCursor":"01JD0000000000000000000001","hasMore":true}`
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, gotPath = r.URL.Query(), r.URL.Path
		_, _ = w.Write([]byte(body))
	}))
	days := DateRange{From: day.From, To: day.To, Days: true}
	p, err := c.Conversations(context.Background(), "proj", days, 100, "01JC0000000000000000000000")
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "/v1/analytics/proj/assistant" || got.Get("dateFrom") != "2026-11-01" || got.Get("dateTo") != "2026-11-02" ||
		got.Get("limit") != "100" || got.Get("cursor") != "01JC0000000000000000000000" {
		t.Errorf("request %s %v", gotPath, got)
	}
	want := []Conversation{
		{Resolution: Unanswered, ResponseType: ResponseAnswer, Category: "Authentication setup", Path: "/docs/auth"},
		{Resolution: Unanswered, ResponseType: ResponseAnswer, Category: Uncategorized},
		{Resolution: Unanswered, ResponseType: ResponseClarifying, Category: strings.Repeat("é", MaxCategoryRunes), Path: "/guides/start"},
		{Resolution: Unanswered, ResponseType: ResponseAnswer, Category: Uncategorized, PathDropped: true},
	}
	at := time.Date(2026, 11, 1, 10, 0, 0, 123e6, time.UTC)
	for i := range want {
		want[i].ID, want[i].Time = "01JD0000000000000000000000", at
		want[i].Sources, want[i].Cited = 1, []string{"/p"}
		if !reflect.DeepEqual(p.Rows[i], want[i]) {
			t.Errorf("row %d = %+v, want %+v", i, p.Rows[i], want[i])
		}
	}
	if !p.HasMore || p.NextCursor != "01JD0000000000000000000001" || p.CutCategories != 1 || p.DroppedPaths != 1 {
		t.Errorf("page %+v", p)
	}
	if s := fmt.Sprintf("%#v", p); strings.Contains(s, secretText) {
		t.Errorf("visitor text decoded: %s", s)
	}
}

// TestConversationsKeepsCitedPaths: of a row's sources only the paths
// of http(s) URLs are kept, each once (an anchor, a query string or
// another host give the same path); other URLs are counted as dropped,
// and no title, query string or fragment is decoded.
func TestConversationsKeepsCitedPaths(t *testing.T) {
	row := func(sources string) string {
		return `{"id":"01JD0000000000000000000000","timestamp":"2026-11-01T10:00:00Z","resolutionStatus":"answered",` +
			`"queryCategory":null,"pageUrl":null` + sources + `}`
	}
	src := func(url string) string { return `{"title":"` + secretText + `","url":` + url + `}` }
	for name, tc := range map[string]struct {
		sources string
		n       int
		cited   []string
		dropped int
	}{
		"absent": {"", 0, nil, 0},
		"null":   {`,"sources":null`, 0, nil, 0},
		"none":   {`,"sources":[]`, 0, nil, 0},
		"one":    {`,"sources":[` + src(`"https://docs.example.com/a/b?q=`+secretText+`"`) + `]`, 1, []string{"/a/b"}, 0},
		"several, one page twice, another host": {`,"sources":[` + strings.Join([]string{
			src(`"https://docs.example.com/b#` + secretText + `"`), src(`"HTTP://acme.mintlify.app/b?x=1"`),
			src(`"https://docs.example.com/a"`), src(`"https://docs.example.com"`)}, ",") + `]`, 4, []string{"/", "/a", "/b"}, 0},
		"hostile": {`,"sources":[` + strings.Join([]string{
			src(`"mailto:` + secretText + `@example.com"`), src(`"/relative/path"`), src(`"ftp://docs.example.com/a"`),
			src(`"javascript:alert(1)"`), src(`null`), src(`42`), `{"title":"` + secretText + `"}`, src(`"https://"`),
			src(`"https://docs.example.com/` + strings.Repeat("a", MaxPathBytes) + `"`), src(`"https://docs.example.com/c"`),
			`"https://docs.example.com/d"`, `null`, `[]`, src(`{"href":"https://docs.example.com/e"}`)}, ",") + `]`,
			14, []string{"/c"}, 13},
	} {
		t.Run(name, func(t *testing.T) {
			body := `{"conversations":[` + row(tc.sources) + `],"nextCursor":null,"hasMore":false}`
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
			p, err := c.Conversations(context.Background(), "proj", DateRange{From: day.From, To: day.To, Days: true}, 100, "")
			if err != nil {
				t.Fatal(err)
			}
			got := p.Rows[0]
			if got.Sources != tc.n || !reflect.DeepEqual(got.Cited, tc.cited) || got.DroppedSources != tc.dropped {
				t.Errorf("sources %d, cited %q, dropped %d; want %d, %q, %d", got.Sources, got.Cited, got.DroppedSources, tc.n, tc.cited, tc.dropped)
			}
			if s := fmt.Sprintf("%#v", p); strings.Contains(s, secretText) {
				t.Errorf("visitor text decoded: %s", s)
			}
		})
	}
}

func TestConversationsRefusesBrokenPages(t *testing.T) {
	row := conversationJSON(`null`, `null`, "")
	for name, tc := range map[string]struct{ body, want string }{
		"no conversations":  {`{"nextCursor":null,"hasMore":false}`, `"conversations"`},
		"no hasMore":        {`{"conversations":[],"nextCursor":null}`, `"hasMore"`},
		"no nextCursor":     {`{"conversations":[],"hasMore":false}`, `"nextCursor"`},
		"more without next": {`{"conversations":[` + row + `],"nextCursor":null,"hasMore":true}`, `nextCursor`},
		"bad cursor":        {`{"conversations":[` + row + `],"nextCursor":"a b","hasMore":true}`, `nextCursor`},
		"no category": {`{"conversations":[` + strings.Replace(row, `"queryCategory":null,`, "", 1) + `],"nextCursor":null,"hasMore":false}`,
			`conversations[0].queryCategory`},
		"no pageUrl": {`{"conversations":[` + strings.Replace(row, `,"pageUrl":null`, "", 1) + `],"nextCursor":null,"hasMore":false}`,
			`conversations[0].pageUrl`},
		"unknown resolution": {`{"conversations":[` + strings.Replace(row, `"unanswered"`, `"maybe"`, 1) + `],"nextCursor":null,"hasMore":false}`,
			`conversations[0].resolutionStatus`},
		"unknown response type": {`{"conversations":[` + conversationJSON(`null`, `null`, "poem") + `],"nextCursor":null,"hasMore":false}`,
			`conversations[0].responseType`},
		"bad timestamp": {`{"conversations":[` + strings.Replace(row, `2026-11-01T10:00:00.123Z`, `yesterday`, 1) + `],"nextCursor":null,"hasMore":false}`,
			`conversations[0].timestamp`},
		"more rows than limit": {`{"conversations":[` + row + `,` + row + `],"nextCursor":null,"hasMore":false}`, `page limit of 1`},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(tc.body)) }))
			_, err := c.Conversations(context.Background(), "proj", day, 1, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %s", err, tc.want)
			}
			if strings.Contains(err.Error(), secretText) {
				t.Errorf("error quotes visitor text: %v", err)
			}
		})
	}
}

// A page of conversations has a bound of its own: streamed, its size is no
// matter of memory, so the bound leaves a long answer room on every row of
// a full page, above the client's general cap. A body announced larger is
// refused unread, and not retried.
func TestConversationsBodyBound(t *testing.T) {
	var calls int
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Length", strconv.Itoa(ConversationsMaxBodyBytes+1))
		_, _ = w.Write([]byte(`{"conversations":[`))
	}))
	_, err := c.Conversations(context.Background(), "proj", day, 100, "")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("body exceeds %d bytes", ConversationsMaxBodyBytes)) {
		t.Fatalf("err = %v", err)
	}
	if calls != 1 {
		t.Errorf("%d calls: a body too large is not retried", calls)
	}
	if perRow := ConversationsMaxBodyBytes / ConversationsPageSize; perRow < 32<<10 {
		t.Errorf("the conversations bound leaves %d bytes a row of a full page, less than a long answer", perRow)
	}
}

func TestConversationsArguments(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("no request expected") }))
	ctx := context.Background()
	for name, err := range map[string]error{
		"limit 0":    func() error { _, err := c.Conversations(ctx, "p", day, 0, ""); return err }(),
		"limit 1001": func() error { _, err := c.Conversations(ctx, "p", day, 1001, ""); return err }(),
		"no project": func() error { _, err := c.Conversations(ctx, "", day, 10, ""); return err }(),
		"bad cursor": func() error { _, err := c.Conversations(ctx, "p", day, 10, "a\nb"); return err }(),
		"no range":   func() error { _, err := c.Conversations(ctx, "p", DateRange{}, 10, ""); return err }(),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestPagePath(t *testing.T) {
	for raw, want := range map[string]string{
		"https://docs.example.com/docs/a?x=1#f": "/docs/a",
		"https://docs.example.com":              "/",
		"/docs/b":                               "/docs/b",
		"docs/c":                                "/docs/c",
		"https://docs.example.com/d%20e":        "/d e",
		"?q=only":                               "",
		"":                                      "",
		"mailto:someone@example.com":            "",
		"/bad\x7fpath":                          "",
		"https://x/%00":                         `/\x00`, // escaped, as every path label is
		"https://x/a%1b%5b2J":                   `/a\x1b[2J`,
		"/" + strings.Repeat("a", MaxPathBytes): "",
		"/\xff":                                 "",
	} {
		got, ok := PagePath(raw)
		if got != want || ok != (want != "") {
			t.Errorf("PagePath(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
}

func TestCategory(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		cut       bool
	}{
		{"Billing", "Billing", false},
		{"  API \t keys\n", "API keys", false},
		{"", Uncategorized, false},
		{"\x00\x01", Uncategorized, false},
		{"a\xffb", "ab", false},
		{strings.Repeat("x", MaxCategoryRunes), strings.Repeat("x", MaxCategoryRunes), false},
		{strings.Repeat("x", MaxCategoryRunes) + "   ", strings.Repeat("x", MaxCategoryRunes), false},
		{strings.Repeat("x", MaxCategoryRunes+1), strings.Repeat("x", MaxCategoryRunes), true},
		{strings.Repeat("x", MaxCategoryRunes-1) + " y", strings.Repeat("x", MaxCategoryRunes-1), true},
	} {
		got, cut := Category(tc.raw)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Category(%q) = %q, %v; want %q, %v", tc.raw, got, cut, tc.want, tc.cut)
		}
	}
}
