package mockapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
)

func TestFaultStatusBeforeAuthAndRemaining(t *testing.T) {
	s, _ := newTest(t, nil)
	s.SetFault(Fault{Endpoint: EndpointViews, Status: 503, Remaining: 2})
	for range 2 {
		w := do(s, "GET", "/v1/analytics/p1/views", "", "") // no key: the gateway answers first
		wantStatus(t, w, 503)
		if e := decode[errResp](t, w); e.Error == nil {
			t.Fatal(w.Body.String())
		}
	}
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/views", "", ""), 401) // fault used up
	if len(s.Faults()) != 0 {
		t.Fatal("used-up fault not removed")
	}
	// A 429 fault with its own Retry-After; other endpoints untouched; no budget used.
	s.SetFault(Fault{Endpoint: EndpointGetJob, Status: 429, RetryAfter: "7"})
	w := do(s, "GET", "/v2/agent/p1/job/any", keyRW, "")
	wantStatus(t, w, 429)
	if w.Header().Get("Retry-After") != "7" || w.Body.String() != `{"error":"Too Many Requests"}` {
		t.Fatalf("429 fault: %v %s", w.Header(), w.Body.String())
	}
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/views", keyRW, ""), 200)
	// An endpoint fault wins over an all-endpoints fault; ClearFaults removes both.
	s.SetFault(Fault{Status: 500})
	wantStatus(t, do(s, "GET", "/v2/agent/p1/job/any", keyRW, ""), 429)
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/visitors", keyRW, ""), 500)
	s.ClearFaults()
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/visitors", keyRW, ""), 200)
}

func TestFaultLatency(t *testing.T) {
	s, _ := newTest(t, nil)
	s.SetFault(Fault{Endpoint: EndpointViews, Latency: 20 * time.Millisecond})
	start := time.Now()
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/views", keyRW, ""), 200)
	if el := time.Since(start); el < 20*time.Millisecond {
		t.Fatalf("latency not applied: %v", el)
	}
	// The wait ends as soon as the client goes away.
	s.SetFault(Fault{Endpoint: EndpointViews, Latency: time.Hour})
	parent, cancel := context.WithCancel(context.Background())
	ctx := &doneWatch{Context: parent, asked: make(chan struct{})}
	r := httptest.NewRequest("GET", "/v1/analytics/p1/views", nil).WithContext(ctx)
	r.Header.Set("Authorization", "Bearer "+keyRW)
	done := make(chan struct{})
	go func() { s.ServeHTTP(httptest.NewRecorder(), r); close(done) }()
	<-ctx.asked // the handler is waiting on the request's context
	cancel()
	// A minute is far beyond any scheduling delay and far below the hour
	// the wait would last if it ignored the context.
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("latency wait ignored the cancelled context")
	}
	reqs := s.Requests()
	if last := reqs[len(reqs)-1]; last.Status != StatusClientClosed {
		t.Fatalf("logged %+v", last)
	}
}

// doneWatch is a context that tells when its Done channel is first asked
// for: a handler that waits on it has reached its wait.
type doneWatch struct {
	context.Context
	once  sync.Once
	asked chan struct{}
}

func (c *doneWatch) Done() <-chan struct{} {
	c.once.Do(func() { close(c.asked) })
	return c.Context.Done()
}

func TestFaultBodies(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
	get := func(path string) *httptest.ResponseRecorder { return do(s, "GET", path, keyRW, "") }

	s.SetFault(Fault{Endpoint: EndpointViews, Body: MalformedJSON})
	w := get("/v1/analytics/p1/views")
	if w.Code != 200 || json.Valid(w.Body.Bytes()) {
		t.Fatalf("malformed: %d valid=%v", w.Code, json.Valid(w.Body.Bytes()))
	}

	s.ClearFaults()
	s.SetFault(Fault{Body: HTML})
	w = get("/v2/agent/p1/job/x")
	if w.Code != 502 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || !strings.Contains(w.Body.String(), "502 Bad Gateway") {
		t.Fatalf("html: %d %s", w.Code, w.Body.String())
	}
	s.SetFault(Fault{Body: HTML, Status: 504})
	if w = get("/v1/analytics/p1/views"); w.Code != 504 || !strings.Contains(w.Body.String(), "<html>") {
		t.Fatalf("html 504: %d", w.Code)
	}

	s.SetFault(Fault{Endpoint: EndpointVisitors, Body: Oversize})
	w = get("/v1/analytics/p1/visitors")
	if w.Body.Len() <= 10<<20 || !json.Valid(w.Body.Bytes()) {
		t.Fatalf("oversize: %d bytes valid=%v", w.Body.Len(), json.Valid(w.Body.Bytes()))
	}
	if p := decode[pageResp](t, w); p.HasMore == nil || len(p.Visitors) != 50 {
		t.Fatal("oversize lost the real answer")
	}
	s.ClearFaults()

	missing := map[string]string{
		"/v1/analytics/p1/views":                  "hasMore",
		"/v1/analytics/p1/visitors":               "hasMore",
		"/v1/analytics/p1/feedback/by-page":       "hasMore",
		"/v1/analytics/p1/searches":               "nextCursor",
		"/v1/analytics/p1/assistant/caller-stats": "total",
		"/v2/agent/p1/job/nope":                   "error",
	}
	for path, field := range missing {
		s.SetFault(Fault{Body: MissingField})
		w = get(path)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, ok := m[field]; ok || (len(m) == 0 && field != "error") {
			t.Errorf("%s: %q still present in %s", path, field, w.Body.String())
		}
	}
	s.SetFault(Fault{Endpoint: EndpointViews, Body: MissingField, Field: "totals"})
	if w = get("/v1/analytics/p1/views"); strings.Contains(w.Body.String(), `"totals"`) || !strings.Contains(w.Body.String(), `"hasMore"`) {
		t.Fatalf("Field: %s", w.Body.String())
	}
	s.SetFault(Fault{Endpoint: EndpointCreateJob, Body: MissingField})
	w = do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"x"}`)
	if w.Code != 201 || strings.Contains(w.Body.String(), `"id"`) || !strings.Contains(w.Body.String(), `"status"`) {
		t.Fatalf("job missing id: %s", w.Body.String())
	}
}

func TestFaultTruncatedOverTheWire(t *testing.T) {
	run, err := Start(testOptions(manualclock.New(t0)))
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	run.Server.SetFault(Fault{Endpoint: EndpointViews, Body: Truncated})
	req, _ := http.NewRequest("GET", run.URL()+"/v1/analytics/p1/views", nil)
	req.Header.Set("Authorization", "Bearer "+keyRW)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("want unexpected EOF, got %v (read %d bytes)", err, len(body))
	}
	if resp.StatusCode != 200 || len(body) == 0 || json.Valid(body) || !strings.HasPrefix(string(body), `{"totals":`) {
		t.Fatalf("status %d body %q", resp.StatusCode, body)
	}
}

type pagedRow struct {
	Path  string `json:"path"`
	Total int64  `json:"total"`
}

func TestFaultPaging(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
	page := func(endpoint string, offset int) ([]pagedRow, bool) {
		w := do(s, "GET", fmt.Sprintf("/v1/analytics/p1/%s?%s&limit=100&offset=%d", endpoint, week, offset), keyRW, "")
		wantStatus(t, w, 200)
		var p struct {
			Views    []pagedRow `json:"views"`
			Visitors []pagedRow `json:"visitors"`
			Feedback []pagedRow `json:"feedback"`
			HasMore  bool       `json:"hasMore"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		return append(append(p.Views, p.Visitors...), p.Feedback...), p.HasMore
	}
	s.SetFault(Fault{DuplicateAcrossPages: true})
	for _, ep := range []string{"views", "visitors"} {
		// Page k starts k rows early: never more than limit rows, each
		// boundary repeated, and one more page to reach the end.
		p0, _ := page(ep, 0)
		p1, _ := page(ep, 100)
		p2, more2 := page(ep, 200)
		p3, more := page(ep, 300)
		if len(p0) != 100 || len(p1) != 100 || len(p2) != 100 || !more2 || len(p3) != 3 || more {
			t.Fatalf("%s: sizes %d %d %d %d more %v %v", ep, len(p0), len(p1), len(p2), len(p3), more2, more)
		}
		if p1[0] != p0[99] || p2[0] != p1[99] || p3[0] != p2[99] {
			t.Fatalf("%s: page boundaries not duplicated", ep)
		}
		seen := map[string]bool{}
		for _, r := range append(append(append(p0, p1...), p2...), p3...) {
			seen[r.Path] = true
		}
		if len(seen) != 300 {
			t.Fatalf("%s: %d distinct paths, want 300", ep, len(seen))
		}
	}
	s.SetFault(Fault{EndlessHasMore: true})
	if rows, more := page("views", 300); len(rows) != 0 || !more {
		t.Fatalf("endless: %d rows more %v", len(rows), more)
	}
	if rows, more := page("feedback/by-page", 100000); len(rows) != 0 || !more {
		t.Fatalf("endless feedback: %d rows more %v", len(rows), more)
	}
	long := "/docs/" + strings.Repeat("a", 10_000)
	bad := "/docs/\xff\xfe-bad"
	s.SetFault(Fault{Endpoint: EndpointViews, ExtraRows: []Row{{Path: bad, Human: 1, Total: 1}, {Path: long, AI: 2, Total: 2}}})
	w := do(s, "GET", "/v1/analytics/p1/views?limit=10", keyRW, "")
	if !strings.Contains(w.Body.String(), `"path":"`+bad+`"`) || utf8.Valid(w.Body.Bytes()) {
		t.Fatal("invalid UTF-8 path not sent byte for byte")
	}
	var p pageResp
	// The extra rows end the first page, which still holds limit rows.
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || len(p.Views) != 10 || p.Views[9].Path != long {
		t.Fatalf("extra rows: %v %d", err, len(p.Views))
	}
	if rows, _ := page("views", 100); len(rows) != 100 {
		t.Fatalf("extra rows leaked to page 2: %d", len(rows))
	}
}

// EndlessRows: past the real rows every views page holds that many paths
// never seen before (above the request's limit too), numbered from the
// offset, and hasMore stays true; the body is what rowsBody writes for
// those rows, byte for byte. The real pages are untouched but for hasMore.
func TestFaultEndlessRows(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
	site, _ := s.Site("p1")
	get := func(offset int) []byte {
		w := do(s, "GET", fmt.Sprintf("/v1/analytics/p1/views?%s&limit=100&offset=%d", week, offset), keyRW, "")
		wantStatus(t, w, 200)
		return w.Body.Bytes()
	}
	last := site.Paths - 100 // the last real page
	clean := get(last)
	s.SetFault(Fault{EndlessRows: 1500})
	if got, want := string(get(last)), strings.Replace(string(clean), `],"hasMore":false}`, `],"hasMore":true}`, 1); got == string(clean) || got != want {
		t.Fatalf("the last real page is not itself with hasMore true:\n%.300s\nwant\n%.300s", got, want)
	}
	var p pageResp
	if err := json.Unmarshal(clean, &p); err != nil {
		t.Fatal(err)
	}
	for _, offset := range []int{site.Paths, site.Paths + 7, 12_345_678_901} {
		rows := make([]Row, 1500)
		for i := range rows {
			rows[i] = Row{Path: fmt.Sprintf("/endless/%010d", offset+i), Human: 1, Total: 1}
		}
		if got, want := get(offset), rowsBody("views", p.Totals, rows, true); string(got) != string(want) {
			t.Fatalf("offset %d: the page differs from its rows:\n%.300s\nwant\n%.300s", offset, got, want)
		}
	}
}
