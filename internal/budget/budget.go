// Package budget counts requests against an hourly allowance over a
// sliding window, the way Mintlify limits analytics calls: 100 per
// organization per hour, shared by every analytics endpoint.
//
// golang.org/x/time/rate is not used here on purpose: a token bucket of
// rate r and burst b lets b + r·1h requests through in one hour, up to twice
// the allowance, and the upstream answers that with 429s. A sliding log of
// request times never lets more than the allowance into any hour.
package budget

import (
	"sync"
	"time"
)

// Clock tells the time; tests pass a fake one.
type Clock interface{ Now() time.Time }

// Window is a sliding one-hour request allowance. It is safe for
// concurrent use.
type Window struct {
	clock  Clock
	period time.Duration

	mu    sync.Mutex
	limit int
	times []time.Time // request times inside the period, oldest first
}

// Period is the length of the sliding window.
const Period = time.Hour

// New returns a window allowing limit requests per Period.
func New(limit int, clock Clock) *Window {
	return &Window{clock: clock, period: Period, limit: max(limit, 0)}
}

// SetLimit changes the allowance (on reload); requests already counted stay.
func (w *Window) SetLimit(limit int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.limit = max(limit, 0)
}

// Limit is the allowance per Period.
func (w *Window) Limit() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.limit
}

func (w *Window) expire(now time.Time) {
	cut := now.Add(-w.period)
	i := 0
	for i < len(w.times) && !w.times[i].After(cut) {
		i++
	}
	if i > 0 {
		w.times = append(w.times[:0], w.times[i:]...)
	}
}

// Used is how many requests were taken in the last Period.
func (w *Window) Used() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	return len(w.times)
}

// Available is how many requests may be taken now.
func (w *Window) Available() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	return max(w.limit-len(w.times), 0)
}

// TryTake takes one request if the allowance has room and reports whether
// it did.
func (w *Window) TryTake() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	w.expire(now)
	if len(w.times) >= w.limit {
		return false
	}
	w.times = append(w.times, now)
	return true
}

// FreeAt is the earliest time at which n requests will be available, given
// what has been taken so far. It is now if they are available already, and
// the zero time if n exceeds the limit (they never will be).
func (w *Window) FreeAt(n int) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	w.expire(now)
	if n > w.limit {
		return time.Time{}
	}
	over := len(w.times) + n - w.limit
	if over <= 0 {
		return now
	}
	// The over-th oldest request must leave the window first.
	return w.times[over-1].Add(w.period)
}
