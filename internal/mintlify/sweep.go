package mintlify

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
)

// Sweep defaults.
const (
	DefaultSweepConcurrency = 4
	DefaultSweepMaxPages    = 400 // 100 000 paths at 250 a page
)

// SweepOptions tune SweepPageViews.
type SweepOptions struct {
	PageSize    int // rows per request; default MaxPageSize
	Concurrency int // pages in flight at once; default DefaultSweepConcurrency
	MaxPages    int // hard cap on requests; default DefaultSweepMaxPages
	// ExpectedPages is how many pages the caller expects (the last sweep's
	// count). Pages up to it are fetched concurrently; past it the sweep
	// walks one page at a time, so no request is spent on a page beyond the
	// end the API already reported. 0 means unknown: walk one at a time.
	ExpectedPages int
	// BeforeRequest runs before every HTTP attempt of the sweep, retries
	// included (see WithGate); an error stops the sweep and is returned
	// wrapping ErrSweepStopped. The exporter takes a budget token here.
	BeforeRequest func(ctx context.Context) error
}

// SweepResult is a whole walk of the views pages.
type SweepResult struct {
	Totals     Counts        // site totals, from the first page
	Rows       []PageViewRow // one per path, sorted by path
	Requests   int           // page requests answered with data
	Pages      int           // pages up to the last (hasMore=false) one
	Duplicates int           // rows dropped because their path came earlier
	// Truncated is set when MaxPages stopped the walk while the API still
	// reported more rows; Rows then holds what the first MaxPages pages had.
	Truncated bool
}

// ErrSweepStopped wraps an error returned by SweepOptions.BeforeRequest or
// a WithGate gate.
var ErrSweepStopped = errors.New("sweep stopped before a request")

// SweepPageViews walks every page of views for projectID in r, at most
// o.Concurrency requests at a time. It never relies on row order: pages are
// merged in offset order and a path seen on an earlier page wins, so a row
// that moved between pages while we read is counted once (in Duplicates).
func (c *Client) SweepPageViews(ctx context.Context, projectID string, r DateRange, o SweepOptions) (*SweepResult, error) {
	return c.SweepRows(ctx, Views, projectID, r, o)
}

// SweepRows is SweepPageViews for either per-path endpoint.
func (c *Client) SweepRows(ctx context.Context, kind RowsKind, projectID string, r DateRange, o SweepOptions) (*SweepResult, error) {
	if o.PageSize <= 0 {
		o.PageSize = MaxPageSize
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultSweepConcurrency
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultSweepMaxPages
	}
	s := &sweep{
		c: c, kind: kind, project: projectID, r: r, o: o,
		pages: make(map[int]*PageViewsPage),
		last:  -1,
	}
	ctx, cancel := context.WithCancel(WithGate(ctx, o.BeforeRequest))
	defer cancel()
	s.cancel = cancel
	return s.run(ctx)
}

type sweep struct {
	c       *Client
	kind    RowsKind
	project string
	r       DateRange
	o       SweepOptions
	cancel  context.CancelFunc

	mu        sync.Mutex
	cond      *sync.Cond
	next      int // next page index to hand out
	scheduled int // pages [0, scheduled) may be handed out
	inFlight  int
	last      int // index of the page that said hasMore=false, -1 until known
	err       error
	pages     map[int]*PageViewsPage
	requests  int
}

func (s *sweep) run(ctx context.Context) (*SweepResult, error) {
	s.cond = sync.NewCond(&s.mu)
	s.scheduled = min(max(s.o.ExpectedPages, 1), s.o.MaxPages)
	var wg sync.WaitGroup
	for range min(s.o.Concurrency, s.o.MaxPages) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.worker(ctx)
		}()
	}
	wg.Wait()
	if s.err != nil {
		return nil, s.err
	}
	return s.merge(), nil
}

// take hands out the next page index, or -1 when the walk is over.
func (s *sweep) take() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.err != nil || (s.last >= 0 && s.next > s.last) || s.next >= s.o.MaxPages {
			return -1
		}
		if s.next < s.scheduled {
			s.next++
			s.inFlight++
			return s.next - 1
		}
		if s.inFlight == 0 {
			return -1 // nothing running could schedule more
		}
		s.cond.Wait()
	}
}

func (s *sweep) done(idx int, p *PageViewsPage, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.cond.Broadcast()
	s.inFlight--
	if err != nil {
		if s.err == nil {
			s.err = err
			s.cancel()
		}
		return
	}
	s.requests++
	s.pages[idx] = p
	// An empty page that claims more rows cannot be followed by anything:
	// taking its word would walk to MaxPages, spending the whole budget on
	// nothing. It ends the walk like hasMore=false.
	if !p.HasMore || len(p.Rows) == 0 {
		if s.last < 0 || idx < s.last {
			s.last = idx
		}
		return
	}
	if idx+1 >= s.scheduled {
		s.scheduled = idx + 2 // one more page beyond what we know exists
	}
}

func (s *sweep) worker(ctx context.Context) {
	for {
		idx := s.take()
		if idx < 0 {
			return
		}
		p, err := s.c.Rows(ctx, s.kind, s.project, s.r, s.o.PageSize, idx*s.o.PageSize)
		s.done(idx, p, err)
	}
}

func (s *sweep) merge() *SweepResult {
	res := &SweepResult{Requests: s.requests}
	end := s.last
	if end < 0 {
		// Never saw hasMore=false: the page cap ended the walk.
		end = s.o.MaxPages - 1
		res.Truncated = true
	}
	res.Pages = end + 1
	if p := s.pages[0]; p != nil {
		res.Totals = p.Totals
	}
	n := 0
	for i := 0; i <= end; i++ {
		if p := s.pages[i]; p != nil {
			n += len(p.Rows)
		}
	}
	seen := make(map[string]struct{}, n)
	rows := make([]PageViewRow, 0, n)
	for i := 0; i <= end; i++ {
		p := s.pages[i]
		if p == nil {
			continue
		}
		for _, row := range p.Rows {
			if _, dup := seen[row.Path]; dup {
				res.Duplicates++
				continue
			}
			seen[row.Path] = struct{}{}
			rows = append(rows, row)
		}
	}
	slices.SortFunc(rows, func(a, b PageViewRow) int { return strings.Compare(a.Path, b.Path) })
	res.Rows = rows
	return res
}
