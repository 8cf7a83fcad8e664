package mockapi

import (
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// listPage is a page of either list endpoint, decoded by the test's own
// types.
type listPage struct {
	Conversations []map[string]any `json:"conversations"`
	Feedback      []map[string]any `json:"feedback"`
	NextCursor    *string          `json:"nextCursor"`
	HasMore       *bool            `json:"hasMore"`
}

// walkList reads every page of a list endpoint, checking each against its
// contract fixture and hasMore against nextCursor, and returns the rows.
func walkList(t *testing.T, s *Server, path string, q url.Values, fixture string) []map[string]any {
	t.Helper()
	sc := loadFixture(t, fixture)
	var rows []map[string]any
	for pages := 0; ; pages++ {
		if pages > 10_000 {
			t.Fatal("endless paging")
		}
		w := do(s, "GET", path+"?"+q.Encode(), keyRW, "")
		wantStatus(t, w, 200)
		problems := sc.problems(t, w.Body.Bytes())
		for _, p := range problems[:min(len(problems), 5)] {
			t.Fatal(p)
		}
		p := decode[listPage](t, w)
		page := append(p.Conversations, p.Feedback...)
		limit := 100
		if l := q.Get("limit"); l != "" {
			limit = atoi(t, l)
		}
		if len(page) > limit {
			t.Fatalf("%d rows on a page of limit %d", len(page), limit)
		}
		rows = append(rows, page...)
		if *p.HasMore != (p.NextCursor != nil) {
			t.Fatalf("hasMore %v with nextCursor %v", *p.HasMore, p.NextCursor)
		}
		if !*p.HasMore {
			return rows
		}
		if len(page) != limit {
			t.Fatalf("a page with more after it holds %d rows, not the limit %d", len(page), limit)
		}
		q.Set("cursor", *p.NextCursor)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func ids(rows []map[string]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r["id"].(string)
	}
	return out
}

func TestConversationsServedWhole(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
	site, _ := s.Site("p1")
	from, to := time.Date(2025, 3, 9, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)
	want := site.Conversations(from, to)
	if len(want) < 50 {
		t.Fatalf("only %d conversations a day: too few to page", len(want))
	}
	for _, limit := range []string{"7", "1000"} {
		q := url.Values{"dateFrom": {"2025-03-09"}, "dateTo": {"2025-03-10"}, "limit": {limit}}
		got := walkList(t, s, "/v1/analytics/p1/assistant", q, "conversations_200.json")
		wantIDs := make([]string, len(want))
		for i, c := range want {
			wantIDs[i] = c.ID
		}
		if !slices.Equal(ids(got), wantIDs) {
			t.Fatalf("limit %s: %d rows served, want the day's %d in order", limit, len(got), len(want))
		}
	}
	var unanswered, nullCategory, nullPage, noType int
	for _, c := range want {
		if c.ResolutionStatus == "unanswered" {
			unanswered++
			if c.QueryCategory == nil {
				nullCategory++
			}
			if c.PageURL == nil {
				nullPage++
			}
		}
		if c.ResponseType == nil {
			noType++
		}
	}
	if unanswered == 0 || nullCategory == 0 || nullPage == 0 || noType == 0 || unanswered == len(want) {
		t.Errorf("of %d conversations: %d unanswered, %d of them without category and %d without page; %d without responseType",
			len(want), unanswered, nullCategory, nullPage, noType)
	}
}

// dateTo is exclusive, to the millisecond: a conversation at exactly
// dateTo belongs to the next range.
func TestConversationsDateToExclusive(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
	site, _ := s.Site("p1")
	day := site.Conversations(time.Date(2025, 3, 9, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC))
	c := day[len(day)/2]
	at := c.Timestamp
	for _, tc := range []struct {
		q    url.Values
		want bool
	}{
		{url.Values{"dateFrom": {"2025-03-09"}, "dateTo": {at}}, false},
		{url.Values{"dateFrom": {at}, "dateTo": {"2025-03-10"}}, true},
	} {
		tc.q.Set("limit", "1000")
		got := ids(walkList(t, s, "/v1/analytics/p1/assistant", tc.q, "conversations_200.json"))
		if slices.Contains(got, c.ID) != tc.want {
			t.Errorf("%v: holds the conversation at %s: %v, want %v", tc.q, at, !tc.want, tc.want)
		}
	}
}

func TestFeedbackEntriesServedWhole(t *testing.T) {
	s, clk := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
	site, _ := s.Site("p1")
	now := clk.Now()
	from := now.Add(-90 * 24 * time.Hour)
	all := site.FeedbackEntries(from, now)
	q := url.Values{"dateFrom": {from.Format(time.RFC3339)}, "dateTo": {now.Format(time.RFC3339)}, "limit": {"100"}}
	got := walkList(t, s, "/v1/analytics/p1/feedback", q, "feedback_200.json")
	wantIDs := make([]string, len(all))
	for i, e := range all {
		wantIDs[i] = e.ID
	}
	if !slices.Equal(ids(got), wantIDs) {
		t.Fatalf("%d entries served, want the %d of the range, newest first", len(got), len(all))
	}
	// Every documented shape and every nullable field, null and not.
	seen := map[string]bool{}
	for _, e := range got {
		seen["source="+e["source"].(string)] = true
		seen["status="+e["status"].(string)] = true
		for _, f := range []string{"comment", "createdAt", "contact", "filename", "lang"} {
			if v, ok := e[f]; ok {
				seen[f+" null="+map[bool]string{true: "yes", false: "no"}[v == nil]] = true
			}
		}
		if strings.HasPrefix(e["path"].(string), "https://") {
			seen["path is a URL"] = true
		}
	}
	for _, want := range []string{"source=contextual", "source=code_snippet", "source=agent", "source=thumbs_only",
		"status=pending", "status=in_progress", "status=resolved", "status=dismissed",
		"comment null=yes", "comment null=no", "createdAt null=yes", "createdAt null=no", "contact null=yes", "contact null=no",
		"filename null=yes", "filename null=no", "lang null=yes", "lang null=no", "path is a URL"} {
		if !seen[want] {
			t.Errorf("no entry with %s in %d", want, len(got))
		}
	}
	// Old pending entries exist: the backlog alert has something to see.
	var oldPending int
	for _, e := range all {
		if e.Status == "pending" && now.Sub(e.Created()) > 14*24*time.Hour {
			oldPending++
		}
	}
	if oldPending == 0 {
		t.Error("no entry older than 14 days is still pending")
	}
}

func TestFeedbackEntriesFilters(t *testing.T) {
	s, clk := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
	site, _ := s.Site("p1")
	now := clk.Now()
	from := now.Add(-60 * 24 * time.Hour)
	var want []string
	for _, e := range site.FeedbackEntries(from, now) {
		if e.Source == "contextual" && (e.Status == "pending" || e.Status == "in_progress") {
			want = append(want, e.ID)
		}
	}
	q := url.Values{"dateFrom": {from.Format(time.RFC3339)}, "dateTo": {now.Format(time.RFC3339)}, "limit": {"3"},
		"status": {"pending,in_progress"}, "source": {"contextual"}}
	got := ids(walkList(t, s, "/v1/analytics/p1/feedback", q, "feedback_200.json"))
	if len(want) < 4 || !slices.Equal(got, want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
}

func TestListEndpointsRefuseBadQueries(t *testing.T) {
	s, _ := newTest(t, nil)
	for _, tc := range []struct{ path, want string }{
		{"/v1/analytics/p1/assistant?limit=0", "limit"},
		{"/v1/analytics/p1/assistant?limit=1001", "limit"},
		{"/v1/analytics/p1/assistant?limit=ten", "limit"},
		{"/v1/analytics/p1/assistant?cursor=not-a-ulid", "cursor"},
		{"/v1/analytics/p1/feedback?limit=101", "limit"},
		{"/v1/analytics/p1/feedback?limit=0", "limit"},
		{"/v1/analytics/p1/feedback?status=open", "status"},
		{"/v1/analytics/p1/feedback?status=pending,", "status"},
		{"/v1/analytics/p1/feedback?status=", "status"},
		{"/v1/analytics/p1/feedback?source=email", "source"},
		{"/v1/analytics/p1/feedback?cursor=xyz", "cursor"},
		{"/v1/analytics/p1/feedback?dateFrom=soon", "dateFrom"},
	} {
		w := do(s, "GET", tc.path, keyRW, "")
		wantStatus(t, w, 400)
		if !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s: body %s does not name %s", tc.path, w.Body.String(), tc.want)
		}
	}
	if n := s.CountRequests(func(r Request) bool {
		return r.Endpoint == EndpointConversations || r.Endpoint == EndpointFeedbackEntries
	}); n != 12 {
		t.Errorf("%d requests recorded under the list endpoints' names, want 12", n)
	}
}

// VisitorText reaches every free-text field, so a test that searches for
// it searches where visitor text really is.
func TestVisitorTextIsPlanted(t *testing.T) {
	const marker = "MARKER-9c1e"
	site := Site{Seed: 1, Paths: 300, VisitorText: marker}
	from := t0.Add(-30 * 24 * time.Hour)
	for _, c := range site.Conversations(t0.Add(-24*time.Hour), t0) {
		if !strings.Contains(c.Query, marker) || !strings.Contains(c.Response, marker) {
			t.Fatalf("conversation %s without the marker", c.ID)
		}
		for _, src := range c.Sources {
			if !strings.Contains(src.Title, marker) || !strings.Contains(src.URL, marker) {
				t.Fatalf("source %+v without the marker", src)
			}
		}
	}
	var comments, contacts, code int
	for _, e := range site.FeedbackEntries(from, t0) {
		for _, p := range []*string{e.Comment, e.Contact, &e.Code} {
			if p != nil && *p != "" && !strings.Contains(*p, marker) {
				t.Fatalf("entry %s: %q without the marker", e.ID, *p)
			}
		}
		if e.Comment != nil {
			comments++
		}
		if e.Contact != nil {
			contacts++
		}
		if e.Code != "" {
			code++
		}
	}
	if comments == 0 || contacts == 0 || code == 0 {
		t.Errorf("%d comments, %d contacts, %d snippets", comments, contacts, code)
	}
}

// The list fixtures are not vacuous: an entry in the wrong shape for its
// source, a missing nullable field or a non-ULID cursor fails.
func TestListFixturesCatchDrift(t *testing.T) {
	for fixture, bodies := range map[string][]string{
		"feedback_200.json": {
			`{"feedback":[{"id":"a","path":"/x","comment":null,"createdAt":null,"source":"code_snippet","status":"pending"}],"nextCursor":null,"hasMore":false}`,
			`{"feedback":[{"id":"a","path":"/x","comment":null,"createdAt":null,"source":"contextual","status":"pending","code":"x","filename":null,"lang":null}],"nextCursor":null,"hasMore":false}`,
			`{"feedback":[{"id":"a","path":"/x","comment":null,"source":"agent","status":"pending"}],"nextCursor":null,"hasMore":false}`,
			`{"feedback":[{"id":"a","path":"/x","comment":null,"createdAt":null,"source":"agent","status":"open"}],"nextCursor":null,"hasMore":false}`,
		},
		"conversations_200.json": {
			`{"conversations":[],"nextCursor":"o:100","hasMore":true}`,
			`{"conversations":[{"id":"a","timestamp":"2025-01-01T00:00:00Z","query":"q","response":"r","sources":[],"resolutionStatus":"answered","queryCategory":null}],"nextCursor":null,"hasMore":false}`,
			`{"conversations":[{"id":"a","timestamp":"2025-01-01T00:00:00Z","query":"q","response":"r","sources":[],"resolutionStatus":"partly","queryCategory":null,"pageUrl":null}],"nextCursor":null,"hasMore":false}`,
		},
	} {
		sc := loadFixture(t, fixture)
		for _, body := range bodies {
			if len(sc.problems(t, []byte(body))) == 0 {
				t.Errorf("%s accepted %s", fixture, body)
			}
		}
	}
}

// TestConversationsServeVariedSources: a day of answers cites every shape
// the client must count: no source, one, several, one page twice (an
// anchor and a query string), a non-http URL and another host; and the
// same conversation always cites the same.
func TestConversationsServeVariedSources(t *testing.T) {
	site := Site{Seed: 1, Paths: 300}
	seen := map[string]int{}
	for _, c := range site.Conversations(t0.Add(-24*time.Hour), t0) {
		if c.ResolutionStatus != "answered" {
			continue
		}
		paths := map[string]bool{}
		for _, src := range c.Sources {
			switch {
			case !strings.HasPrefix(src.URL, "http"):
				seen["non-http"]++
			case strings.HasPrefix(src.URL, OtherHost):
				seen["another host"]++
			}
			paths[strings.FieldsFunc(strings.TrimPrefix(src.URL, SiteURL), func(r rune) bool { return r == '#' || r == '?' })[0]] = true
		}
		switch {
		case len(c.Sources) == 0:
			seen["none"]++
		case len(c.Sources) == 1:
			seen["one"]++
		case len(paths) < len(c.Sources):
			seen["a page twice"]++
		case len(c.Sources) > 2:
			seen["several"]++
		}
	}
	for _, kind := range []string{"none", "one", "several", "a page twice", "non-http", "another host"} {
		if seen[kind] == 0 {
			t.Errorf("no answer cites %s: %v", kind, seen)
		}
	}
	a, b := site.Conversations(t0.Add(-time.Hour), t0), site.Conversations(t0.Add(-time.Hour), t0)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same hour served twice cites differently")
	}
}
