package mockapi

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// liveCounts are the month-to-date numbers a client reads at the
// server's now, through the endpoints, with a day range that ends
// tomorrow (the exporter's month window): views, searches, assistant
// callers, feedback by page (every page of it) and conversations.
type liveCounts struct {
	views, other, searches, callers, feedback, conversations int64
}

func readLive(t *testing.T, s *Server, project string) liveCounts {
	t.Helper()
	month := "dateFrom=2025-03-01&dateTo=2025-03-11"
	base := "/v1/analytics/" + project + "/"
	var c liveCounts
	w := do(s, http.MethodGet, base+"views?limit=1&"+month, keyAnyProj, "")
	wantStatus(t, w, http.StatusOK)
	v := decode[pageResp](t, w)
	c.views, c.other = v.Totals.Human+v.Totals.AI, v.Totals.Total-v.Totals.Human-v.Totals.AI
	w = do(s, http.MethodGet, base+"searches?limit=1&"+month, keyAnyProj, "")
	wantStatus(t, w, http.StatusOK)
	c.searches = decode[struct {
		TotalSearches int64 `json:"totalSearches"`
	}](t, w).TotalSearches
	w = do(s, http.MethodGet, base+"assistant/caller-stats?"+month, keyAnyProj, "")
	wantStatus(t, w, http.StatusOK)
	c.callers = decode[struct {
		Total int64 `json:"total"`
	}](t, w).Total
	for off := 0; ; off += 100 {
		w = do(s, http.MethodGet, fmt.Sprintf("%sfeedback/by-page?limit=100&offset=%d&%s", base, off, month), keyAnyProj, "")
		wantStatus(t, w, http.StatusOK)
		p := decode[struct {
			Feedback []struct {
				Total int64 `json:"total"`
			} `json:"feedback"`
			HasMore bool `json:"hasMore"`
		}](t, w)
		for _, r := range p.Feedback {
			c.feedback += r.Total
		}
		if !p.HasMore {
			break
		}
	}
	cursor := ""
	for {
		w = do(s, http.MethodGet, base+"assistant?limit=1000&"+month+cursor, keyAnyProj, "")
		wantStatus(t, w, http.StatusOK)
		p := decode[struct {
			Conversations []struct {
				ID string `json:"id"`
			} `json:"conversations"`
			NextCursor *string `json:"nextCursor"`
			HasMore    bool    `json:"hasMore"`
		}](t, w)
		c.conversations += int64(len(p.Conversations))
		if !p.HasMore || p.NextCursor == nil {
			break
		}
		cursor = "&cursor=" + *p.NextCursor
	}
	return c
}

// TestLiveSiteGrowsWithTheClock: a Live site (the demo's) is read as the
// clock moves. Its month-to-date counts, asked with dateTo tomorrow as the
// exporter asks, grow within every ten minutes of an hour, never go back,
// and do not jump when an hour begins; a site that is not Live counts an
// hour whole from its first instant, and changes only then.
func TestLiveSiteGrowsWithTheClock(t *testing.T) {
	s, clk := newTest(t, func(o *Options) {
		o.Projects["live"] = Site{Seed: 1, Paths: 300, OtherTraffic: true, Live: true}
		o.AnalyticsBudgetPerHour = 1000
	})
	start := t0.Add(-time.Hour) // 11:00, an hour before t0 and its tests
	clk.Set(start)
	prev := readLive(t, s, "live")
	for step := 1; step <= 6; step++ {
		clk.Set(start.Add(time.Duration(step) * 10 * time.Minute))
		now := readLive(t, s, "live")
		if now.views <= prev.views {
			t.Errorf("at %s the month's views are %d, ten minutes earlier %d: the site is not being read", clk.Now().Format("15:04"), now.views, prev.views)
		}
		for _, n := range []struct {
			name      string
			now, prev int64
		}{
			{"views", now.views, prev.views}, {"other views", now.other, prev.other}, {"searches", now.searches, prev.searches},
			{"assistant callers", now.callers, prev.callers}, {"feedback", now.feedback, prev.feedback},
			{"conversations", now.conversations, prev.conversations},
		} {
			if n.now < n.prev {
				t.Errorf("at %s the month's %s went back from %d to %d", clk.Now().Format("15:04"), n.name, n.prev, n.now)
			}
		}
		prev = now
	}
	// Over the hour, every number moved.
	first := func() liveCounts { clk.Set(start); return readLive(t, s, "live") }()
	clk.Set(start.Add(time.Hour))
	last := readLive(t, s, "live")
	if last.searches <= first.searches || last.callers <= first.callers || last.feedback <= first.feedback || last.conversations <= first.conversations {
		t.Errorf("over an hour: %+v, then %+v; want every count grown", first, last)
	}
	// No jump as an hour ends: the views of its last minute are about a
	// sixtieth of its whole (each path's events arrive evenly over the
	// hour), not the hour at once.
	hourViews := last.views - first.views
	clk.Set(start.Add(time.Hour - time.Minute))
	before := readLive(t, s, "live").views
	if lastMinute := last.views - before; lastMinute*10 > hourViews {
		t.Errorf("the last minute of the hour brought %d of its %d views", lastMinute, hourViews)
	}
}

// TestLiveSiteWholeHoursAsBefore: over whole hours (a day range, as the
// backfill asks) a Live site counts exactly what the same site that is
// not Live counts, so the backfill's history and the demo's live counters
// agree; the range's last hour counts only once it has passed.
func TestLiveSiteWholeHoursAsBefore(t *testing.T) {
	still := Site{Seed: 7, Paths: 120, OtherTraffic: true}
	live := still
	live.Live = true
	day := time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)
	for _, r := range [][2]time.Time{{day, day.Add(24 * time.Hour)}, {day.AddDate(0, 0, -3), day}, {day.Add(5 * time.Hour), day.Add(6 * time.Hour)}} {
		lt, lrows := live.Views(r[0], r[1])
		st, srows := still.Views(r[0], r[1])
		if lt != st || !reflect.DeepEqual(lrows, srows) {
			t.Errorf("%s to %s: live %+v, still %+v", r[0], r[1], lt, st)
		}
		ls, ln := live.Searches(r[0], r[1])
		ss, sn := still.Searches(r[0], r[1])
		if ln != sn || !reflect.DeepEqual(ls, ss) || live.CallerStats(r[0], r[1]) != still.CallerStats(r[0], r[1]) ||
			!reflect.DeepEqual(live.Feedback(r[0], r[1]), still.Feedback(r[0], r[1])) {
			t.Errorf("%s to %s: the searches, assistant or feedback of the live site differ from the still one's", r[0], r[1])
		}
	}
	// Half an hour in: the still site counts the hour whole, the live one
	// about half of it (each path's half, give or take one event).
	from, mid := day.Add(5*time.Hour), day.Add(5*time.Hour+30*time.Minute)
	lt, _ := live.Views(from, mid)
	st, _ := still.Views(from, mid)
	if d := 2*lt.Human - st.Human; lt.Human >= st.Human || d > 2*int64(still.Paths) || d < -2*int64(still.Paths) {
		t.Errorf("half an hour: live %d human views, the whole hour %d: want about half", lt.Human, st.Human)
	}
}
