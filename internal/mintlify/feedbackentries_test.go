package mintlify

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// One entry of each shape the endpoint documents, visitor text in every
// free-text field.
var feedbackShapes = []string{
	`{"id":"f1","path":"/docs/a","comment":"` + secretText + `","createdAt":"2026-11-01T08:00:00Z","source":"contextual","status":"pending","helpful":false,"contact":"` + secretText + `@example.com"}`,
	`{"id":"f2","path":"https://docs.example.com/docs/b?u=` + secretText + `","comment":null,"createdAt":null,"source":"code_snippet","status":"in_progress","code":"` + secretText + `","filename":null,"lang":"go"}`,
	`{"id":"f3","path":"/docs/c","comment":"` + secretText + `","createdAt":"2026-10-01T00:00:00+02:00","source":"agent","status":"pending"}`,
	`{"id":"f4","path":"?only=query","comment":null,"createdAt":"2026-11-01T09:00:00Z","source":"thumbs_only","status":"in_progress"}`,
}

func TestFeedbackEntriesDecodesCountsOnly(t *testing.T) {
	var got url.Values
	var gotPath string
	body := `{"feedback":[` + strings.Join(feedbackShapes, ",") + `],"nextCursor":"next-1","hasMore":true}`
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, gotPath = r.URL.Query(), r.URL.Path
		_, _ = w.Write([]byte(body))
	}))
	f := FeedbackFilter{Range: DateRange{From: day.From, To: day.To, Days: true}, Statuses: []string{FeedbackPending, FeedbackInProgress}}
	p, err := c.FeedbackEntries(context.Background(), "proj", f, 100, "prev-0")
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "/v1/analytics/proj/feedback" || got.Get("status") != "pending,in_progress" || got.Get("limit") != "100" ||
		got.Get("cursor") != "prev-0" || got.Get("dateFrom") != "2026-11-01" || got.Get("dateTo") != "2026-11-02" || got.Has("source") {
		t.Errorf("request %s %v", gotPath, got)
	}
	want := []FeedbackEntry{
		{ID: "f1", Status: FeedbackPending, Source: "contextual", Path: "/docs/a", Created: time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)},
		{ID: "f2", Status: FeedbackInProgress, Source: "code_snippet", Path: "/docs/b"},
		{ID: "f3", Status: FeedbackPending, Source: "agent", Path: "/docs/c", Created: time.Date(2026, 9, 30, 22, 0, 0, 0, time.UTC)},
		{ID: "f4", Status: FeedbackInProgress, Source: "thumbs_only", Created: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)},
	}
	for i := range want {
		if p.Rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, p.Rows[i], want[i])
		}
	}
	if !p.HasMore || p.NextCursor != "next-1" || p.DroppedPaths != 1 {
		t.Errorf("page %+v", p)
	}
	if s := fmt.Sprintf("%#v", p); strings.Contains(s, secretText) {
		t.Errorf("visitor text decoded: %s", s)
	}
}

func TestFeedbackEntriesRefusesBrokenPages(t *testing.T) {
	row := feedbackShapes[2]
	page := func(rows string) string { return `{"feedback":[` + rows + `],"nextCursor":null,"hasMore":false}` }
	for name, tc := range map[string]struct{ body, want string }{
		"no feedback":       {`{"nextCursor":null,"hasMore":false}`, `"feedback"`},
		"no hasMore":        {`{"feedback":[],"nextCursor":null}`, `"hasMore"`},
		"no nextCursor":     {`{"feedback":[],"hasMore":false}`, `"nextCursor"`},
		"more without next": {`{"feedback":[],"nextCursor":null,"hasMore":true}`, `nextCursor`},
		"no createdAt":      {page(strings.Replace(row, `"createdAt":"2026-10-01T00:00:00+02:00",`, "", 1)), `feedback[0].createdAt`},
		"no path":           {page(strings.Replace(row, `"path":"/docs/c",`, "", 1)), `feedback[0].path`},
		"unknown status":    {page(strings.Replace(row, `"pending"`, `"open"`, 1)), `feedback[0].status`},
		"unknown source":    {page(strings.Replace(row, `"agent"`, `"email"`, 1)), `feedback[0].source`},
		"bad createdAt":     {page(strings.Replace(row, `2026-10-01T00:00:00+02:00`, `last week`, 1)), `feedback[0].createdAt`},
		"more than limit":   {page(row + "," + row), `page limit of 1`},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(tc.body)) }))
			_, err := c.FeedbackEntries(context.Background(), "proj", FeedbackFilter{Range: day}, 1, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %s", err, tc.want)
			}
		})
	}
}

func TestFeedbackEntriesBodyBound(t *testing.T) {
	big := `{"feedback":[],"nextCursor":null,"hasMore":false,"pad":"` + strings.Repeat("x", FeedbackEntriesMaxBodyBytes) + `"}`
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(big)) }))
	_, err := c.FeedbackEntries(context.Background(), "proj", FeedbackFilter{Range: day}, 100, "")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("body exceeds %d bytes", FeedbackEntriesMaxBodyBytes)) {
		t.Fatalf("err = %v", err)
	}
}

func TestFeedbackEntriesArguments(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("no request expected") }))
	ctx := context.Background()
	ok := FeedbackFilter{Range: day}
	for name, tc := range map[string]struct {
		f      FeedbackFilter
		limit  int
		cursor string
	}{
		"limit 0":        {ok, 0, ""},
		"limit 101":      {ok, 101, ""},
		"unknown status": {FeedbackFilter{Range: day, Statuses: []string{"pending", "open"}}, 10, ""},
		"unknown source": {FeedbackFilter{Range: day, Source: "email"}, 10, ""},
		"bad cursor":     {ok, 10, strings.Repeat("c", 300)},
		"no range":       {FeedbackFilter{}, 10, ""},
	} {
		if _, err := c.FeedbackEntries(ctx, "p", tc.f, tc.limit, tc.cursor); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A streamed page whose length is not announced is read up to its bound
// and no further: the decoder stops there, the page is refused and not
// retried.
func TestFeedbackEntriesStreamBound(t *testing.T) {
	var calls int
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		_, _ = w.Write([]byte(`{"feedback":[],"nextCursor":null,"hasMore":false,"pad":"`))
		w.(http.Flusher).Flush() // no Content-Length: chunked
		_, _ = w.Write([]byte(strings.Repeat("x", FeedbackEntriesMaxBodyBytes) + `"}`))
	}))
	f := FeedbackFilter{Range: day}
	_, err := c.FeedbackEntries(context.Background(), "proj", f, 100, "")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("body exceeds %d bytes", FeedbackEntriesMaxBodyBytes)) {
		t.Fatalf("err = %v", err)
	}
	if calls != 1 {
		t.Errorf("%d calls: a body too large is not retried", calls)
	}
}
