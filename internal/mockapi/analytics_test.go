package mockapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// walk pages through views or visitors with offset += limit while hasMore.
func walk(t *testing.T, s *Server, endpoint, project, query string, limit int) (Counts, []Row, int) {
	t.Helper()
	var all []Row
	var totals Counts
	calls := 0
	for offset := 0; ; offset += limit {
		w := do(s, "GET", fmt.Sprintf("/v1/analytics/%s/%s?%s&limit=%d&offset=%d", project, endpoint, query, limit, offset), keyRW, "")
		wantStatus(t, w, 200)
		calls++
		p := decode[pageResp](t, w)
		rows := p.Views
		if endpoint == "visitors" {
			rows = p.Visitors
		}
		if len(rows) > limit {
			t.Fatalf("page of %d rows > limit %d", len(rows), limit)
		}
		if calls > 1 && p.Totals != totals {
			t.Fatalf("totals changed between pages: %+v vs %+v", p.Totals, totals)
		}
		totals = p.Totals
		all = append(all, rows...)
		if p.HasMore == nil {
			t.Fatal("hasMore missing")
		}
		if !*p.HasMore {
			return totals, all, calls
		}
		if calls > 10_000 {
			t.Fatal("endless paging")
		}
	}
}

func TestPagingReturnsEveryPathOnce(t *testing.T) {
	from, to := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 8, 0, 0, 0, 0, time.UTC)
	for _, n := range []int{0, 1, 250, 251, 10_000} {
		for _, endpoint := range []string{"views", "visitors"} {
			t.Run(fmt.Sprintf("%s/%d", endpoint, n), func(t *testing.T) {
				s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
				s.SetPaths("p1", n)
				site, _ := s.Site("p1")
				totals, rows, calls := walk(t, s, endpoint, "p1", week, 250)
				if want := max(1, (n+249)/250); calls != want {
					t.Errorf("%d calls, want %d", calls, want)
				}
				wantTotals, wantRows := site.Views(from, to)
				if endpoint == "visitors" {
					wantTotals, wantRows = site.Visitors(from, to)
				}
				if totals != wantTotals {
					t.Errorf("totals %+v, want %+v", totals, wantTotals)
				}
				if len(rows) != n {
					t.Fatalf("%d rows, want %d", len(rows), n)
				}
				want := map[string]Row{}
				for _, r := range wantRows {
					want[r.Path] = r
				}
				seen := map[string]bool{}
				for _, r := range rows {
					if seen[r.Path] {
						t.Fatalf("path %q twice", r.Path)
					}
					seen[r.Path] = true
					if want[r.Path] != r {
						t.Fatalf("row %+v, want %+v", r, want[r.Path])
					}
				}
			})
		}
	}
}

func TestViewsDefaultsAndOrder(t *testing.T) {
	s, _ := newTest(t, nil)
	w := do(s, "GET", "/v1/analytics/p1/views", keyRW, "")
	wantStatus(t, w, 200)
	p := decode[pageResp](t, w)
	if len(p.Views) != 50 || !*p.HasMore {
		t.Fatalf("default page: %d rows hasMore %v", len(p.Views), *p.HasMore)
	}
	_, want := Site{Seed: 1, Paths: 300}.Views(t0.Add(-defaultRange), t0)
	for i, r := range p.Views {
		if r != want[i] {
			t.Fatalf("row %d = %+v, want %+v (served order)", i, r, want[i])
		}
	}
	sorted := true
	for i := 1; i < len(p.Views); i++ {
		if p.Views[i-1].Path > p.Views[i].Path {
			sorted = false
		}
	}
	if sorted {
		t.Error("rows come out alphabetical; the mock must not let clients rely on order")
	}
	// offset past the end: empty page, hasMore false.
	p = decode[pageResp](t, do(s, "GET", "/v1/analytics/p1/views?offset=1000", keyRW, ""))
	if len(p.Views) != 0 || p.Views == nil || *p.HasMore {
		t.Fatalf("past the end: %+v", p)
	}
}

func TestDayEdgeAndExclusiveDateTo(t *testing.T) {
	s, _ := newTest(t, nil)
	site, _ := s.Site("p2")
	d := time.Date(2025, 3, 5, 0, 0, 0, 0, time.UTC)
	lateHour := d.Add(23*time.Hour).Unix() / 3600
	get := func(q string) pageResp {
		t.Helper()
		w := do(s, "GET", "/v1/analytics/p2/views?limit=250&"+q, keyRW, "")
		wantStatus(t, w, 200)
		return decode[pageResp](t, w)
	}
	sumHours := func(first, end int64) (h int64) {
		for i := range site.Paths {
			for hr := first; hr < end; hr++ {
				x, _ := site.HourViews(i, hr)
				h += x
			}
		}
		return h
	}
	dayD := get("dateFrom=2025-03-05&dateTo=2025-03-06")
	if want := sumHours(lateHour-23, lateHour+1); dayD.Totals.Human != want {
		t.Fatalf("day D human %d, want %d (23:00 bucket included)", dayD.Totals.Human, want)
	}
	dayD1 := get("dateFrom=2025-03-06&dateTo=2025-03-07")
	if want := sumHours(lateHour+1, lateHour+25); dayD1.Totals.Human != want {
		t.Fatalf("day D+1 human %d, want %d (23:00 of D excluded)", dayD1.Totals.Human, want)
	}
	// The same day in every accepted date-time spelling.
	for _, q := range []string{
		"dateFrom=2025-03-05T00:00:00Z&dateTo=2025-03-06T00:00:00Z",
		"dateFrom=2025-03-05T00:00:00.000Z&dateTo=2025-03-06T00:00:00.000Z",
		"dateFrom=" + url.QueryEscape("2025-03-05T02:00:00+02:00") + "&dateTo=" + url.QueryEscape("2025-03-05T19:00:00-05:00"),
		"dateFrom=2025-03-05&dateTo=2025-03-06T00:00:00Z",
	} {
		if got := get(q); got.Totals != dayD.Totals {
			t.Errorf("%s: %+v, want %+v", q, got.Totals, dayD.Totals)
		}
	}
	// One nanosecond past midnight takes in D+1's first bucket.
	more := get("dateFrom=2025-03-05&dateTo=2025-03-06T00:00:00.000000001Z")
	if want := sumHours(lateHour-23, lateHour+2); more.Totals.Human != want {
		t.Errorf("dateTo just past midnight: human %d, want %d", more.Totals.Human, want)
	}
	// dateFrom == dateTo is an empty range, not an error.
	if empty := get("dateFrom=2025-03-05&dateTo=2025-03-05"); empty.Totals != (Counts{}) {
		t.Errorf("empty range totals %+v", empty.Totals)
	}
}

func TestAnalyticsValidation(t *testing.T) {
	s, _ := newTest(t, nil)
	bad := []string{
		"limit=0", "limit=251", "limit=abc", "limit=1.5", "limit=", "offset=-1", "offset=x",
		"dateFrom=2025-13-01", "dateFrom=yesterday", "dateTo=2025/03/01", "dateFrom=2025-03-05T00:00:00",
		"dateFrom=2025-03-08&dateTo=2025-03-01",
		"dateFrom=2025-03-05T00:00:00+02:00", // unescaped '+' decodes to a space
	}
	for _, q := range bad {
		w := do(s, "GET", "/v1/analytics/p1/views?"+q, keyRW, "")
		wantStatus(t, w, http.StatusBadRequest)
		e := decode[errResp](t, w)
		if e.Error == nil || *e.Error == "" || len(e.Details) == 0 || e.Details[0].Message == "" {
			t.Errorf("%s: error body %s", q, w.Body.String())
		}
	}
	for _, q := range []string{"limit=1", "limit=250", "offset=0", "offset=99999"} {
		wantStatus(t, do(s, "GET", "/v1/analytics/p1/visitors?"+q, keyRW, ""), 200)
	}
	for _, q := range []string{"limit=101", "limit=0", "offset=-3", "source=email"} {
		wantStatus(t, do(s, "GET", "/v1/analytics/p1/feedback/by-page?"+q, keyRW, ""), 400)
	}
	for _, q := range []string{"limit=101", "cursor=!!", "cursor=" + encodeCursor(-1)[:2]} {
		wantStatus(t, do(s, "GET", "/v1/analytics/p1/searches?"+q, keyRW, ""), 400)
	}
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/feedback/by-page?limit=10.0&source=contextual", keyRW, ""), 200)
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/assistant/caller-stats?dateFrom=x", keyRW, ""), 400)
}

func TestFeedbackPaging(t *testing.T) {
	s, _ := newTest(t, nil)
	site, _ := s.Site("big")
	from, to := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 8, 0, 0, 0, 0, time.UTC)
	want := site.Feedback(from, to)
	var got []FeedbackRow
	for offset := 0; ; offset += 100 {
		w := do(s, "GET", fmt.Sprintf("/v1/analytics/big/feedback/by-page?%s&limit=100&offset=%d", week, offset), keyRW, "")
		wantStatus(t, w, 200)
		p := decode[struct {
			Feedback []FeedbackRow `json:"feedback"`
			HasMore  bool          `json:"hasMore"`
		}](t, w)
		got = append(got, p.Feedback...)
		if !p.HasMore {
			break
		}
	}
	if len(got) != len(want) || len(want) < 100 {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d %+v want %+v", i, got[i], want[i])
		}
	}
}

func TestSearchesCursorWalk(t *testing.T) {
	s, _ := newTest(t, nil)
	site, _ := s.Site("big")
	from, to := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 8, 0, 0, 0, 0, time.UTC)
	want, wantTotal := site.Searches(from, to)
	type resp struct {
		Searches []struct {
			SearchQuery    string  `json:"searchQuery"`
			Hits           int64   `json:"hits"`
			TopClickedPage *string `json:"topClickedPage"`
		} `json:"searches"`
		TotalSearches int64   `json:"totalSearches"`
		NextCursor    *string `json:"nextCursor"`
	}
	var n int
	cursor := ""
	for pages := 0; ; pages++ {
		q := "/v1/analytics/big/searches?" + week + "&limit=100"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		w := do(s, "GET", q, keyRW, "")
		wantStatus(t, w, 200)
		p := decode[resp](t, w)
		if p.TotalSearches != wantTotal {
			t.Fatalf("totalSearches %d want %d", p.TotalSearches, wantTotal)
		}
		for _, r := range p.Searches {
			if r.SearchQuery != want[n].SearchQuery || r.Hits != want[n].Hits {
				t.Fatalf("row %d: %+v want %+v", n, r, want[n])
			}
			n++
		}
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	if n != len(want) || n <= 100 {
		t.Fatalf("walked %d of %d", n, len(want))
	}
}

func TestCallerStatsAndEmptySite(t *testing.T) {
	s, _ := newTest(t, nil)
	w := do(s, "GET", "/v1/analytics/p1/assistant/caller-stats?"+week, keyRW, "")
	wantStatus(t, w, 200)
	got := decode[CallerStats](t, w)
	from, to := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 3, 8, 0, 0, 0, 0, time.UTC)
	if want := (Site{Seed: 1, Paths: 300}).CallerStats(from, to); got != want {
		t.Fatalf("%+v want %+v", got, want)
	}
	w = do(s, "GET", "/v1/analytics/empty/searches?"+week, keyRW, "")
	wantStatus(t, w, 200)
	if !strings.Contains(w.Body.String(), `"searches":[]`) {
		t.Fatalf("empty site searches: %s", w.Body.String())
	}
}

// A day range that reaches past now (dateTo = tomorrow) counts what has
// happened: the hour buckets that began before now, exactly as the range
// [dateFrom, now) does.
func TestDayRangeEndingTomorrowCountsUpToNow(t *testing.T) {
	s, clk := newTest(t, nil)
	site, _ := s.Site("p2")
	clk.Set(time.Date(2025, 3, 10, 12, 30, 0, 0, time.UTC))
	get := func(q string) pageResp {
		t.Helper()
		w := do(s, "GET", "/v1/analytics/p2/views?limit=250&"+q, keyRW, "")
		wantStatus(t, w, 200)
		return decode[pageResp](t, w)
	}
	month := get("dateFrom=2025-03-01&dateTo=2025-03-11")
	wantTotals, _ := site.Views(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), clk.Now())
	if month.Totals != wantTotals {
		t.Fatalf("month to date %+v, want %+v (up to now)", month.Totals, wantTotals)
	}
	if now := get("dateFrom=2025-03-01&dateTo=2025-03-10T12:30:00Z"); now.Totals != month.Totals {
		t.Fatalf("[1st, now) %+v differs from [1st, tomorrow) %+v", now.Totals, month.Totals)
	}
	// An hour later the 13:00 bucket has begun, and counts.
	clk.Advance(time.Hour)
	if later := get("dateFrom=2025-03-01&dateTo=2025-03-11"); later.Totals.Human <= month.Totals.Human && later.Totals.AI <= month.Totals.AI {
		t.Fatalf("the counter did not grow in an hour: %+v then %+v", month.Totals, later.Totals)
	}
}

// RefuseFutureDates answers a dateTo after now with 400, and nothing else.
func TestRefuseFutureDates(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.RefuseFutureDates = true })
	w := do(s, "GET", "/v1/analytics/p2/views?dateFrom=2025-03-01&dateTo=2025-03-11", keyRW, "")
	wantStatus(t, w, 400)
	if !strings.Contains(w.Body.String(), "dateTo") {
		t.Errorf("400 body does not name dateTo: %s", w.Body)
	}
	for _, ep := range []string{"feedback/by-page", "searches", "assistant/caller-stats"} {
		wantStatus(t, do(s, "GET", "/v1/analytics/p2/"+ep+"?dateFrom=2025-03-01&dateTo=2025-03-11", keyRW, ""), 400)
	}
	wantStatus(t, do(s, "GET", "/v1/analytics/p2/views?dateFrom=2025-03-01&dateTo=2025-03-10T12:00:00Z", keyRW, ""), 200)
	s.SetRefuseFutureDates(false)
	wantStatus(t, do(s, "GET", "/v1/analytics/p2/views?dateFrom=2025-03-01&dateTo=2025-03-11", keyRW, ""), 200)
}
