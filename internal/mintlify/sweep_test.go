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
)

// pagedSite serves n rows "/p0000".. in reverse path order, so a client that
// relied on row order would notice.
type pagedSite struct {
	n          int
	dupAcross  bool // last row of page k repeats as first row of page k+1
	endless    bool // hasMore never false
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
		"hasMore": s.endless || offset+limit < s.n,
	})
}

func TestSweep(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		site                          *pagedSite
		opts                          SweepOptions
		wantRows, wantPages, wantReqs int
		wantDups                      int
		truncated                     bool
	}{
		{"empty", &pagedSite{n: 0}, SweepOptions{}, 0, 1, 1, 0, false},
		{"one", &pagedSite{n: 1}, SweepOptions{}, 1, 1, 1, 0, false},
		{"exactly one page", &pagedSite{n: 250}, SweepOptions{}, 250, 1, 1, 0, false},
		{"one past a page", &pagedSite{n: 251}, SweepOptions{}, 251, 2, 2, 0, false},
		{"10k sequential discovery", &pagedSite{n: 10000}, SweepOptions{}, 10000, 40, 40, 0, false},
		{"10k with exact hint", &pagedSite{n: 10000}, SweepOptions{ExpectedPages: 40}, 10000, 40, 40, 0, false},
		{"hint too small", &pagedSite{n: 10000}, SweepOptions{ExpectedPages: 10}, 10000, 40, 40, 0, false},
		// Pages past the end may or may not be asked for, depending on when
		// the last page answers: -1 skips the exact request count.
		{"hint too large", &pagedSite{n: 1000}, SweepOptions{ExpectedPages: 6, Concurrency: 2}, 1000, 4, -1, 0, false},
		{"small pages", &pagedSite{n: 95}, SweepOptions{PageSize: 10, ExpectedPages: 3}, 95, 10, 10, 0, false},
		{"duplicates across pages", &pagedSite{n: 1000, dupAcross: true}, SweepOptions{ExpectedPages: 4}, 999, 4, 4, 1, false},
		{"page cap", &pagedSite{n: 1000}, SweepOptions{MaxPages: 2}, 500, 2, 2, 0, true},
		{"endless hasMore stops at the first empty page", &pagedSite{n: 10, endless: true}, SweepOptions{MaxPages: 5}, 10, 2, 2, 0, false},
		{"endless hasMore with full pages hits the cap", &pagedSite{n: 5000, endless: true}, SweepOptions{MaxPages: 3, ExpectedPages: 3}, 750, 3, 3, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.site.failOffset = -1
			c, _ := newTestClient(t, tc.site)
			res, err := c.SweepPageViews(context.Background(), "p", day, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantReqs < 0 {
				if res.Requests < tc.wantPages || res.Requests > tc.opts.ExpectedPages {
					t.Fatalf("requests %d outside [%d, %d]", res.Requests, tc.wantPages, tc.opts.ExpectedPages)
				}
				tc.wantReqs = res.Requests
			}
			if len(res.Rows) != tc.wantRows || res.Pages != tc.wantPages || res.Requests != tc.wantReqs ||
				res.Duplicates != tc.wantDups || res.Truncated != tc.truncated {
				t.Fatalf("rows %d pages %d requests %d dups %d truncated %v; want %d %d %d %d %v",
					len(res.Rows), res.Pages, res.Requests, res.Duplicates, res.Truncated,
					tc.wantRows, tc.wantPages, tc.wantReqs, tc.wantDups, tc.truncated)
			}
			if int(tc.site.calls.Load()) != tc.wantReqs {
				t.Fatalf("server saw %d calls, result says %d", tc.site.calls.Load(), res.Requests)
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

func TestSweepConcurrencyBound(t *testing.T) {
	site := &pagedSite{n: 10000, failOffset: -1}
	c, _ := newTestClient(t, site)
	if _, err := c.SweepPageViews(context.Background(), "p", day, SweepOptions{ExpectedPages: 40, Concurrency: 3}); err != nil {
		t.Fatal(err)
	}
	if m := site.maxSeen.Load(); m > 3 {
		t.Fatalf("%d requests in flight, bound is 3", m)
	}
}

func TestSweepErrors(t *testing.T) {
	t.Run("page error fails the sweep", func(t *testing.T) {
		site := &pagedSite{n: 1000, failOffset: 500}
		c, _ := newTestClient(t, site, func(o *Options) { o.MaxRetries = -1 })
		res, err := c.SweepPageViews(context.Background(), "p", day, SweepOptions{ExpectedPages: 4})
		if err == nil || res != nil || !IsServerError(err) {
			t.Fatalf("res %v err %v", res, err)
		}
	})
	t.Run("BeforeRequest stops it", func(t *testing.T) {
		site := &pagedSite{n: 1000, failOffset: -1}
		c, _ := newTestClient(t, site)
		var n atomic.Int32
		budget := errors.New("budget spent")
		_, err := c.SweepPageViews(context.Background(), "p", day, SweepOptions{
			Concurrency: 1,
			BeforeRequest: func(context.Context) error {
				if n.Add(1) > 2 {
					return budget
				}
				return nil
			}})
		if !errors.Is(err, ErrSweepStopped) || !errors.Is(err, budget) {
			t.Fatalf("err = %v", err)
		}
		if site.calls.Load() != 2 {
			t.Fatalf("calls %d, want 2", site.calls.Load())
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		site := &pagedSite{n: 1000, failOffset: -1}
		c, _ := newTestClient(t, site)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := c.SweepPageViews(ctx, "p", day, SweepOptions{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
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
	_, err := c.SweepPageViews(context.Background(), "p", day, SweepOptions{BeforeRequest: func(context.Context) error {
		gated.Add(1)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if gated.Load() != calls.Load() || calls.Load() != 2 {
		t.Fatalf("gate ran %d times for %d HTTP attempts; every attempt must pass the gate", gated.Load(), calls.Load())
	}
}
