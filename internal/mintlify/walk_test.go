package mintlify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pagedSite serves n rows "/p0000".. in reverse path order, so a client that
// relied on row order would notice.
type pagedSite struct {
	n          int
	dupAcross  bool // last row of page k repeats as first row of page k+1
	endless    bool // hasMore never false
	loop       bool // every offset answers page 0's rows
	failOffset int  // offset that answers 500; -1 none
	inFlight   atomic.Int32
	maxSeen    atomic.Int32
	calls      atomic.Int32
	mu         sync.Mutex
	offsets    []int
}

func (s *pagedSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if cur <= m || s.maxSeen.CompareAndSwap(m, cur) {
			break
		}
	}
	s.calls.Add(1)
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	s.mu.Lock()
	s.offsets = append(s.offsets, offset)
	s.mu.Unlock()
	if offset == s.failOffset {
		w.WriteHeader(500)
		return
	}
	views := []map[string]any{}
	if s.loop {
		offset = 0
	}
	start := offset
	if s.dupAcross && offset > 0 {
		start = offset - 1
	}
	// Never more than limit rows: with dupAcross a page repeats the row
	// before its offset and so ends one short, as when rows shift.
	for i := start; i < min(start+limit, s.n); i++ {
		idx := s.n - 1 - i
		views = append(views, map[string]any{"path": fmt.Sprintf("/p%04d", idx), "human": idx, "ai": 1, "total": idx + 1})
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"totals":  map[string]int{"human": 10, "ai": 5, "total": 16},
		"views":   views,
		"hasMore": s.endless || s.loop || offset+limit < s.n,
	})
}

// walkAll reads a whole walk in one go, as an exporter with budget to
// spare does.
func walkAll(ctx context.Context, c *Client, o WalkOptions, pageSize int) (*Walk, error) {
	w := NewWalk(Views, day, pageSize)
	return w, c.Continue(ctx, "p", w, o)
}

func TestWalk(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		site                          *pagedSite
		pageSize                      int
		opts                          WalkOptions
		wantRows, wantPages, wantReqs int
		wantDups                      int
		truncated, repeated           bool
	}{
		{"empty", &pagedSite{n: 0}, 0, WalkOptions{}, 0, 1, 1, 0, false, false},
		{"one", &pagedSite{n: 1}, 0, WalkOptions{}, 1, 1, 1, 0, false, false},
		{"exactly one page", &pagedSite{n: 250}, 0, WalkOptions{}, 250, 1, 1, 0, false, false},
		{"one past a page", &pagedSite{n: 251}, 0, WalkOptions{}, 251, 2, 2, 0, false, false},
		{"10k sequential discovery", &pagedSite{n: 10000}, 0, WalkOptions{}, 10000, 40, 40, 0, false, false},
		{"10k with exact hint", &pagedSite{n: 10000}, 0, WalkOptions{ExpectedPages: 40}, 10000, 40, 40, 0, false, false},
		{"hint too small", &pagedSite{n: 10000}, 0, WalkOptions{ExpectedPages: 10}, 10000, 40, 40, 0, false, false},
		// Pages past the end may or may not be asked for, depending on when
		// the last page answers: -1 means "between the pages and the hint".
		{"hint too large", &pagedSite{n: 1000}, 0, WalkOptions{ExpectedPages: 6, Concurrency: 2}, 1000, 4, -1, 0, false, false},
		{"small pages", &pagedSite{n: 95}, 10, WalkOptions{ExpectedPages: 3}, 95, 10, 10, 0, false, false},
		{"duplicates across pages", &pagedSite{n: 1000, dupAcross: true}, 0, WalkOptions{ExpectedPages: 4}, 999, 4, 4, 1, false, false},
		{"page cap", &pagedSite{n: 1000}, 0, WalkOptions{MaxPages: 2}, 500, 2, 2, 0, true, false},
		{"endless hasMore stops at the first empty page", &pagedSite{n: 10, endless: true}, 0, WalkOptions{MaxPages: 5}, 10, 2, 2, 0, false, false},
		{"endless hasMore with full pages hits the cap", &pagedSite{n: 5000, endless: true}, 0, WalkOptions{MaxPages: 3, ExpectedPages: 3}, 750, 3, 3, 0, true, false},
		// An upstream that answers page 0 again for every offset: the
		// second page brings nothing new and ends the walk.
		{"looping upstream costs one extra page", &pagedSite{n: 100, loop: true}, 0, WalkOptions{MaxPages: 400}, 100, 2, 2, 100, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.site.failOffset = -1
			c, _ := newTestClient(t, tc.site)
			res, err := walkAll(context.Background(), c, tc.opts, tc.pageSize)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Done() {
				t.Fatal("walk not done with no gate")
			}
			if tc.wantReqs < 0 {
				if res.Requests < tc.wantPages || int(tc.site.calls.Load()) > tc.opts.ExpectedPages {
					t.Fatalf("requests %d (server %d) outside [%d, %d]", res.Requests, tc.site.calls.Load(), tc.wantPages, tc.opts.ExpectedPages)
				}
				tc.wantReqs = int(tc.site.calls.Load())
			}
			if len(res.Rows) != tc.wantRows || res.Pages() != tc.wantPages || res.Requests != tc.wantPages ||
				res.Duplicates != tc.wantDups || res.Truncated != tc.truncated || res.Repeated != tc.repeated {
				t.Fatalf("rows %d pages %d requests %d dups %d truncated %v repeated %v; want %d %d %d %d %v %v",
					len(res.Rows), res.Pages(), res.Requests, res.Duplicates, res.Truncated, res.Repeated,
					tc.wantRows, tc.wantPages, tc.wantPages, tc.wantDups, tc.truncated, tc.repeated)
			}
			if int(tc.site.calls.Load()) != tc.wantReqs {
				t.Fatalf("server saw %d calls, want %d", tc.site.calls.Load(), tc.wantReqs)
			}
			for i, r := range res.Rows {
				if i > 0 && res.Rows[i-1].Path >= r.Path {
					t.Fatalf("rows not sorted and unique at %d: %q then %q", i, res.Rows[i-1].Path, r.Path)
				}
				var idx int
				fmt.Sscanf(r.Path, "/p%d", &idx)
				if r.Human != float64(idx) || r.Total != float64(idx+1) {
					t.Fatalf("row %q has counts %+v", r.Path, r.Counts)
				}
			}
			if tc.wantReqs > 0 && res.Totals != (Counts{10, 5, 16}) {
				t.Fatalf("totals %+v", res.Totals)
			}
		})
	}
}

// A walk read in several goes, each allowed a few requests, pays for every
// page once and ends with the same rows as a walk read in one go.
func TestWalkResumes(t *testing.T) {
	site := &pagedSite{n: 10000, failOffset: -1}
	c, _ := newTestClient(t, site)
	w := NewWalk(Views, day, 0)
	goes := 0
	for !w.Done() {
		goes++
		if goes > 20 {
			t.Fatal("walk does not end")
		}
		left := 7
		var mu sync.Mutex
		gc := c.Gated(func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			if left == 0 {
				return errors.New("spent")
			}
			left--
			return nil
		})
		if err := gc.Continue(context.Background(), "p", w, WalkOptions{ExpectedPages: 40}); err != nil {
			t.Fatalf("go %d: a refused request is no error: %v", goes, err)
		}
		// Save and load between goes, as a restart would.
		b, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		w = new(Walk)
		if err := json.Unmarshal(b, w); err != nil {
			t.Fatal(err)
		}
	}
	if goes != 6 || int(site.calls.Load()) != 40 || w.Requests != 40 || len(w.Rows) != 10000 || w.Duplicates != 0 {
		t.Fatalf("goes %d calls %d requests %d rows %d dups %d; want 6 goes, 40 calls and requests, 10000 rows", goes, site.calls.Load(), w.Requests, len(w.Rows), w.Duplicates)
	}
}

func TestWalkKeepsWhatIsExportable(t *testing.T) {
	site := &pagedSite{n: 1000, failOffset: -1}
	c, _ := newTestClient(t, site)
	w := NewWalk(Views, day, 0)
	err := c.Continue(context.Background(), "p", w, WalkOptions{
		Keep:    func(p string) bool { return p < "/p0500" },
		MaxRows: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	// 500 pass the filter; the 100 most viewed of them are /p0400../p0499.
	if len(w.Rows) != 100 || w.Rows[0].Path != "/p0400" || w.Rows[99].Path != "/p0499" || w.Dropped != 900 {
		t.Fatalf("kept %d rows (%v..), dropped %d", len(w.Rows), w.Rows[0].Path, w.Dropped)
	}
}

func TestWalkConcurrencyBound(t *testing.T) {
	site := &pagedSite{n: 10000, failOffset: -1}
	c, _ := newTestClient(t, site)
	if _, err := walkAll(context.Background(), c, WalkOptions{ExpectedPages: 40, Concurrency: 3}, 0); err != nil {
		t.Fatal(err)
	}
	if m := site.maxSeen.Load(); m > 3 {
		t.Fatalf("%d requests in flight, bound is 3", m)
	}
}

func TestWalkErrors(t *testing.T) {
	t.Run("page error fails the walk and it resumes there", func(t *testing.T) {
		site := &pagedSite{n: 1000, failOffset: 500}
		c, _ := newTestClient(t, site, func(o *Options) { o.MaxRetries = -1 })
		w, err := walkAll(context.Background(), c, WalkOptions{ExpectedPages: 4, Concurrency: 1}, 0)
		if err == nil || !IsServerError(err) || w.Done() || w.Next != 2 || len(w.Rows) != 500 {
			t.Fatalf("err %v done %v next %d rows %d", err, w.Done(), w.Next, len(w.Rows))
		}
		site.failOffset = -1
		if err := c.Continue(context.Background(), "p", w, WalkOptions{ExpectedPages: 4}); err != nil || !w.Done() || len(w.Rows) != 1000 {
			t.Fatalf("resumed: err %v done %v rows %d", err, w.Done(), len(w.Rows))
		}
	})
	t.Run("a refused request pauses it", func(t *testing.T) {
		site := &pagedSite{n: 1000, failOffset: -1}
		c, _ := newTestClient(t, site)
		var n atomic.Int32
		gc := c.Gated(func(context.Context) error {
			if n.Add(1) > 2 {
				return errors.New("budget spent")
			}
			return nil
		})
		w := NewWalk(Views, day, 0)
		if err := gc.Continue(context.Background(), "p", w, WalkOptions{Concurrency: 1}); err != nil {
			t.Fatalf("err = %v", err)
		}
		if site.calls.Load() != 2 || w.Next != 2 || w.Done() {
			t.Fatalf("calls %d next %d done %v, want 2 pages read and the walk paused", site.calls.Load(), w.Next, w.Done())
		}
	})
	t.Run("a deadline between requests is a timeout, not a pause", func(t *testing.T) {
		site := &pagedSite{n: 1000, failOffset: -1}
		c, _ := newTestClient(t, site)
		ctx, cancel := context.WithCancel(context.Background())
		var n atomic.Int32
		// The gate sees the context end after two pages, as a refresh
		// whose deadline passes between requests does.
		gated := c.Gated(func(ctx context.Context) error {
			if n.Add(1) > 2 {
				cancel()
			}
			return ctx.Err()
		})
		err := gated.Continue(ctx, "p", NewWalk(Views, day, 0), WalkOptions{Concurrency: 1})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want the context's error", err)
		}
	})
	t.Run("a refused retry reports the failure", func(t *testing.T) {
		site := &pagedSite{n: 1000, failOffset: 0}
		c, _ := newTestClient(t, site, func(o *Options) { o.MaxRetries = 1; o.RetryBase = time.Millisecond })
		var n atomic.Int32
		gc := c.Gated(func(context.Context) error {
			if n.Add(1) > 1 {
				return errors.New("budget spent")
			}
			return nil
		})
		err := gc.Continue(context.Background(), "p", NewWalk(Views, day, 0), WalkOptions{Concurrency: 1})
		if !IsServerError(err) {
			t.Fatalf("err = %v, want the 500", err)
		}
	})
}

func TestGateCountsRetries(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(503)
			return
		}
		fmt.Fprint(w, `{"totals":{"human":1,"ai":1,"total":2},"views":[],"hasMore":false}`)
	}))
	var gated atomic.Int32
	gc := c.Gated(func(context.Context) error {
		gated.Add(1)
		return nil
	})
	if _, err := walkAll(context.Background(), gc, WalkOptions{}, 0); err != nil {
		t.Fatal(err)
	}
	if gated.Load() != calls.Load() || calls.Load() != 2 {
		t.Fatalf("gate ran %d times for %d HTTP attempts; every attempt must pass the gate", gated.Load(), calls.Load())
	}
}

func TestMonthToDate(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(DayLayout, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	east := time.FixedZone("UTC+10", 10*3600)
	for _, c := range []struct {
		at       time.Time
		from, to string
	}{
		{day("2026-11-24"), "2026-11-01", "2026-11-25"},
		{time.Date(2026, 11, 24, 23, 59, 59, 0, time.UTC), "2026-11-01", "2026-11-25"},
		{day("2026-11-01"), "2026-11-01", "2026-11-02"},
		{time.Date(2026, 12, 31, 18, 0, 0, 0, time.UTC), "2026-12-01", "2027-01-01"},
		{time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC), "2024-02-01", "2024-03-01"},
		// 1 December 05:00 at UTC+10 is still 30 November in UTC.
		{time.Date(2026, 12, 1, 5, 0, 0, 0, east), "2026-11-01", "2026-12-01"},
	} {
		r := MonthToDate(c.at)
		if !r.Days || !r.From.Equal(day(c.from)) || !r.To.Equal(day(c.to)) || r.From.Location() != time.UTC || r.To.Location() != time.UTC {
			t.Errorf("MonthToDate(%s) = %+v, want [%s, %s) in UTC day dates", c.at, r, c.from, c.to)
		}
	}
}

// TestGatedLeavesTheClientAlone: a gated client's requests pass its gate;
// the client it was made from, and another gated copy, keep their own.
func TestGatedLeavesTheClientAlone(t *testing.T) {
	site := &pagedSite{n: 100, failOffset: -1}
	c, _ := newTestClient(t, site)
	refused := c.Gated(func(context.Context) error { return errors.New("no budget") })
	if _, err := refused.Rows(context.Background(), Views, "p", day, 10, 0); !errors.Is(err, ErrWalkStopped) || site.calls.Load() != 0 {
		t.Fatalf("gated: %v after %d calls, want ErrWalkStopped before any", err, site.calls.Load())
	}
	var passed atomic.Int32
	counted := c.Gated(func(context.Context) error { passed.Add(1); return nil })
	if _, err := counted.Rows(context.Background(), Views, "p", day, 10, 0); err != nil || passed.Load() != 1 {
		t.Fatalf("another gated copy: %v, gate passed %d times, want 1", err, passed.Load())
	}
	if _, err := c.Rows(context.Background(), Views, "p", day, 10, 0); err != nil || passed.Load() != 1 || site.calls.Load() != 2 {
		t.Fatalf("the client itself: %v, gate passed %d, calls %d; want ungated", err, passed.Load(), site.calls.Load())
	}
}
