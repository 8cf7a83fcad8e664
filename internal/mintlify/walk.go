package mintlify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Walk defaults.
const (
	DefaultWalkConcurrency = 4
	DefaultWalkMaxPages    = 400 // 100 000 paths at 250 a page
)

// ErrWalkStopped wraps a Gate's refusal: the budget for now is spent, or the caller is shutting down.
var ErrWalkStopped = errors.New("walk stopped before a request")

// Walk reads every page of a per-path endpoint over one range, in as many Continue calls as the gate allows,
// keeping every row it paid for; its exported fields let a walk in progress survive a restart.
type Walk struct {
	Endpoint RowsEndpoint `json:"kind"`
	Range    DateRange    `json:"range"`
	PageSize int          `json:"page_size"`
	// Next is the first page not read; Last the final page's index, -1 until known.
	Next int `json:"next"`
	Last int `json:"last"`

	Totals     Counts        `json:"totals"` // site totals, from page 0
	Rows       []PageViewRow `json:"rows"`   // kept rows, one per path
	Requests   int           `json:"requests"`
	Duplicates int           `json:"duplicates"` // rows whose path came on an earlier page
	Dropped    int           `json:"dropped"`    // rows not kept (Keep said no, or beyond MaxRows)
	// Merged counts rows summed into another of the same label value (see PathLabel), so no views are lost;
	// not stored, as no state file held it before.
	Merged int `json:"-"`
	// Repeated: a page brought no new path, so the upstream loops and the walk ended.
	Repeated bool `json:"repeated"`
	// Truncated: MaxPages ended the walk while the upstream reported more.
	Truncated bool `json:"truncated"`
	// Seen hashes every path read, kept or not, so a loop is noticed whatever the filters keep.
	Seen []uint64 `json:"seen"`

	seen map[uint64]struct{}
}

// NewWalk starts a walk of endpoint over r, pageSize rows a page (default MaxPageSize).
func NewWalk(endpoint RowsEndpoint, r DateRange, pageSize int) *Walk {
	if pageSize <= 0 || pageSize > MaxPageSize {
		pageSize = MaxPageSize
	}
	return &Walk{Endpoint: endpoint, Range: r, PageSize: pageSize, Last: -1}
}

// Clone shares nothing with w, so one goroutine can continue it while another reads w.
func (w *Walk) Clone() *Walk {
	c := *w
	c.Rows = slices.Clone(w.Rows)
	c.Seen = slices.Clone(w.Seen)
	c.seen = maps.Clone(w.seen)
	return &c
}

// Done reports whether the walk has read its last page (or hit its cap).
func (w *Walk) Done() bool { return w.Truncated || (w.Last >= 0 && w.Next > w.Last) }

// Pages is the pages found so far: the hint for the next walk of the same range kind.
func (w *Walk) Pages() int {
	if w.Last >= 0 {
		return w.Last + 1
	}
	return w.Next
}

// Remaining is the requests the walk still expects given hint pages in all; at least 1 until done.
func (w *Walk) Remaining(hint int) int {
	if w.Done() {
		return 0
	}
	return max(hint-w.Next, 1)
}

// WalkOptions tune Continue.
type WalkOptions struct {
	Concurrency int // pages in flight at once; default DefaultWalkConcurrency
	MaxPages    int // pages in the whole walk; default DefaultWalkMaxPages
	// ExpectedPages (the last walk's) are read concurrently; past it one at a time, so none is spent past the end.
	ExpectedPages int
	// Keep selects rows (nil keeps all); the rest count in Dropped.
	Keep func(path string) bool
	// MaxRows keeps only the most viewed rows; 0 is no bound beyond MaxPages × PageSize.
	MaxRows int
}

// Continue reads pages until done, refused by the gate (nil error, resumed later) or failed; pages apply in
// order, so one read after a failure is dropped and the walk resumes at the failed one.
func (c *Client) Continue(ctx context.Context, projectID string, w *Walk, o WalkOptions) error {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultWalkConcurrency
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultWalkMaxPages
	}
	w.index()
	if w.capped(o.MaxPages) {
		return nil
	}
	r := &walkRun{c: c, project: projectID, w: w, o: o,
		next: w.Next, pending: map[int]*PageViewsPage{}}
	r.cond = sync.NewCond(&r.mu)
	r.scheduled = min(max(o.ExpectedPages, w.Next+1), o.MaxPages)
	var wg sync.WaitGroup
	for range o.Concurrency {
		wg.Go(func() { r.worker(ctx) })
	}
	wg.Wait()
	done := w.capped(o.MaxPages)
	w.trim(o.MaxRows)
	if done {
		// A done walk is kept for minutes as data: no spare hash capacity.
		w.Seen, w.seen = nil, nil
		if cap(w.Rows) > len(w.Rows)+len(w.Rows)/8 {
			w.Rows = slices.Clone(w.Rows)
		}
	} else {
		w.Seen = slices.AppendSeq(w.Seen[:0], maps.Keys(w.seen))
		slices.Sort(w.Seen)
	}
	if r.err != nil {
		return r.err
	}
	if r.refused != nil && ctx.Err() != nil {
		return ctx.Err() // a deadline or shutdown is no pause
	}
	return nil
}

func stoppedByGate(err error) bool {
	var ae *APIError
	var re *ResponseError
	return errors.Is(err, ErrWalkStopped) && !errors.As(err, &ae) && !errors.As(err, &re)
}

// capped marks the walk Truncated when MaxPages ends it with pages left, and reports whether it is done.
func (w *Walk) capped(maxPages int) bool {
	if !w.Done() && w.Next >= maxPages {
		w.Truncated = true
	}
	return w.Done()
}

func (w *Walk) index() {
	if w.seen == nil {
		w.seen = hashSet(w.Seen)
	}
}

func hashSet(hashes []uint64) map[uint64]struct{} {
	m := make(map[uint64]struct{}, len(hashes))
	for _, h := range hashes {
		m[h] = struct{}{}
	}
	return m
}

// hash64 hashes the paths, ids and cursors walks remember; the values are stored, so it never changes.
func hash64(p string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(p))
	return h.Sum64()
}

func (w *Walk) apply(idx int, p *PageViewsPage, keep func(string) bool) {
	w.Requests++
	w.Next = idx + 1
	if idx == 0 {
		w.Totals = p.Totals
	}
	fresh := 0
	for _, row := range p.Rows {
		h := hash64(row.key())
		if _, dup := w.seen[h]; dup {
			w.Duplicates++
			continue
		}
		w.seen[h] = struct{}{}
		fresh++
		if keep != nil && !keep(row.Path) {
			w.Dropped++
			continue
		}
		w.Rows = append(w.Rows, row)
	}
	switch {
	case !p.HasMore || len(p.Rows) == 0:
		// An empty page claiming more rows: following it would spend the budget on nothing.
		w.Last = idx
	case fresh == 0:
		// Nothing new: the upstream repeats itself.
		w.Last, w.Repeated = idx, true
	}
}

func (w *Walk) trim(maxRows int) {
	w.merge()
	n := len(w.Rows)
	w.Rows = MostViewed(w.Rows, maxRows)
	w.Dropped += n - len(w.Rows)
}

func (w *Walk) merge() {
	slices.SortFunc(w.Rows, func(a, b PageViewRow) int { return strings.Compare(a.Path, b.Path) })
	out := w.Rows[:0]
	for _, r := range w.Rows {
		if n := len(out); n > 0 && out[n-1].Path == r.Path {
			c := &out[n-1].Counts
			c.Human, c.AI, c.Total = c.Human+r.Human, c.AI+r.AI, c.Total+r.Total
			w.Merged++
			continue
		}
		r.Raw = "" // rows are told apart by Seen from here on
		out = append(out, r)
	}
	clear(w.Rows[len(out):])
	w.Rows = out
}

// MostViewed reorders rows and returns the max most viewed by total (ties by path; 0 keeps all), sorted by path.
func MostViewed(rows []PageViewRow, max int) []PageViewRow {
	if max > 0 && len(rows) > max {
		slices.SortFunc(rows, func(a, b PageViewRow) int {
			if c := cmp.Compare(b.Total, a.Total); c != 0 {
				return c
			}
			return strings.Compare(a.Path, b.Path)
		})
		rows = slices.Clip(rows[:max])
	}
	slices.SortFunc(rows, func(a, b PageViewRow) int { return strings.Compare(a.Path, b.Path) })
	return rows
}

// Add applies the walk's next page as Continue would, for a caller that makes its own requests (the backfill).
func (w *Walk) Add(p *PageViewsPage, o WalkOptions) {
	if w.Done() {
		return
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultWalkMaxPages
	}
	w.index()
	w.apply(w.Next, p, o.Keep)
	if w.capped(o.MaxPages) {
		w.trim(o.MaxRows)
		w.Seen, w.seen = nil, nil
	}
}

type walkRun struct {
	c       *Client
	project string
	w       *Walk
	o       WalkOptions

	mu        sync.Mutex
	cond      *sync.Cond
	next      int // next page index to hand out
	scheduled int // pages [.., scheduled) may be handed out
	inFlight  int
	err       error // the first (by page) request that failed
	errAt     int
	refused   error                  // the gate refused a request: the walk pauses
	pending   map[int]*PageViewsPage // read but not yet applied (out of order)
}

func (r *walkRun) take(ctx context.Context) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		w := r.w
		if r.err != nil || r.refused != nil || w.Done() || (w.Last >= 0 && r.next > w.Last) || r.next >= r.o.MaxPages {
			return -1
		}
		if r.next < r.scheduled {
			// Asked in page order, so refused pages are always the last and nothing read is thrown away.
			if gate := r.c.gate; gate != nil {
				if err := gate(ctx); err != nil {
					// Pages in flight were paid for: let them land.
					r.refused = fmt.Errorf("%w: %w", ErrWalkStopped, err)
					return -1
				}
			}
			r.next++
			r.inFlight++
			return r.next - 1
		}
		if r.inFlight == 0 {
			return -1 // nothing running could schedule more
		}
		r.cond.Wait()
	}
}

func (r *walkRun) done(idx int, p *PageViewsPage, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.cond.Broadcast()
	r.inFlight--
	if err != nil {
		if stoppedByGate(err) {
			// A refusal inside the client (a call the walk did not pre-pay): a pause, not a failure.
			if r.refused == nil {
				r.refused = err
			}
			return
		}
		if r.err == nil || idx < r.errAt {
			r.err, r.errAt = err, idx
		}
		return
	}
	if r.err != nil && idx > r.errAt {
		return // a page before this one failed: the walk resumes there
	}
	r.pending[idx] = p
	for {
		q, ok := r.pending[r.w.Next]
		if !ok || r.w.Done() {
			break
		}
		delete(r.pending, r.w.Next)
		r.w.apply(r.w.Next, q, r.o.Keep)
	}
	if !r.w.Done() && r.w.Next == r.next && r.next >= r.scheduled {
		r.scheduled = r.next + 1 // one more page beyond what we know exists
	}
}

func (r *walkRun) worker(ctx context.Context) {
	for {
		idx := r.take(ctx)
		if idx < 0 {
			return
		}
		p, err := r.c.rows(ctx, r.w.Endpoint, r.project, r.w.Range, r.w.PageSize, idx*r.w.PageSize, true)
		r.done(idx, p, err)
	}
}
