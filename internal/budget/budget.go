// Package budget counts requests against an hourly allowance over a
// sliding window, the way Mintlify limits analytics calls: 100 per
// organization per hour, shared by every analytics endpoint.
//
// golang.org/x/time/rate is not used here on purpose: a token bucket of
// rate r and burst b lets b + r·1h requests through in one hour, up to twice
// the allowance, and the upstream answers that with 429s. A sliding log of
// request times never lets more than the allowance into any hour.
//
// A refresh first reserves the requests it expects to make (Reserve), so
// that two refreshes never race for the same slots; each request it then
// makes is taken from its reservation (Reservation.Take), recorded at the
// time it is made, and what it did not use goes back (Reservation.Release).
package budget

import (
	"slices"
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

	mu       sync.Mutex
	limit    int
	times    []time.Time // request times inside the period, oldest first
	reserved int         // slots held by reservations, not yet used
	// foreign are requests another process made with the same key (the
	// backfill command, through the state file): they count against the
	// allowance but are not this window's own (Times leaves them out).
	foreign []time.Time
}

// Period is the length of the sliding window.
const Period = time.Hour

// MaxRecorded bounds the request times a window keeps or restores: far
// above any hourly limit the upstream grants, so a corrupt state file
// cannot make a window hold millions of times.
const MaxRecorded = 10_000

// New returns a window allowing limit requests per Period.
func New(limit int, clock Clock) *Window {
	return &Window{clock: clock, period: Period, limit: min(max(limit, 0), MaxRecorded)}
}

// SetLimit changes the allowance (on reload); requests already counted stay.
func (w *Window) SetLimit(limit int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.limit = min(max(limit, 0), MaxRecorded)
}

func (w *Window) expire(now time.Time) {
	w.times = expireBefore(w.times, now.Add(-w.period))
	w.foreign = expireBefore(w.foreign, now.Add(-w.period))
}

// expireBefore drops the times of a sorted list up to cut.
func expireBefore(times []time.Time, cut time.Time) []time.Time {
	i := 0
	for i < len(times) && !times[i].After(cut) {
		i++
	}
	if i > 0 {
		times = append(times[:0], times[i:]...)
	}
	return times
}

// SetForeign replaces the requests other processes made with the same
// key. Times outside the window, in the future or beyond MaxRecorded are
// dropped.
func (w *Window) SetForeign(times []time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	w.foreign = w.foreign[:0]
	for _, t := range times {
		if t.After(now.Add(-w.period)) && !t.After(now) {
			w.foreign = append(w.foreign, t)
		}
	}
	slices.SortFunc(w.foreign, func(a, b time.Time) int { return a.Compare(b) })
	if len(w.foreign) > MaxRecorded {
		w.foreign = w.foreign[len(w.foreign)-MaxRecorded:]
	}
}

// all is the own and foreign request times, oldest first.
func (w *Window) all() []time.Time {
	if len(w.foreign) == 0 {
		return w.times
	}
	out := append(slices.Clone(w.times), w.foreign...)
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// Used is how many requests were made in the last Period, by this
// window's owner and (SetForeign) by others with the same key.
func (w *Window) Used() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	return len(w.times) + len(w.foreign)
}

// Available is how many requests may be reserved now.
func (w *Window) Available() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	return w.available()
}

func (w *Window) available() int {
	return max(w.limit-len(w.times)-len(w.foreign)-w.reserved, 0)
}

// TryTake makes one request outside any reservation if the allowance has
// room, and reports whether it did.
func (w *Window) TryTake() bool {
	r := w.Reserve(1)
	ok := r.Take()
	r.Release()
	return ok
}

// Reserve holds up to n slots for one caller and returns the reservation;
// it may hold fewer (even none) when the allowance has less room. The
// slots are counted as used from now until they are taken or released.
func (w *Window) Reserve(n int) *Reservation {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	n = min(max(n, 0), w.available())
	w.reserved += n
	return &Reservation{w: w, left: n}
}

// FreeAt is the earliest time at which n requests will be available, given
// what has been used and reserved so far. It is now if they are available
// already, and the zero time if n exceeds the limit (they never will be).
func (w *Window) FreeAt(n int) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	w.expire(now)
	if n > w.limit {
		return time.Time{}
	}
	all := w.all()
	over := len(all) + w.reserved + n - w.limit
	if over <= 0 {
		return now
	}
	if over > len(all) {
		// Reservations in flight hold the rest; they end within a refresh
		// timeout, after which the slots are either free or in times.
		if len(all) == 0 {
			return now.Add(time.Minute)
		}
		return all[len(all)-1].Add(w.period)
	}
	// The over-th oldest request must leave the window first.
	return all[over-1].Add(w.period)
}

// Times returns the request times inside the window (plus, as made now,
// the slots still reserved: a state file written mid-refresh must not
// undercount if the process dies before they are used), oldest first.
func (w *Window) Times() []time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	w.expire(now)
	out := slices.Clone(w.times)
	for range w.reserved {
		out = append(out, now)
	}
	return out
}

// Restore adds request times remembered from before a restart. Times
// outside the window, in the future or beyond MaxRecorded are dropped.
func (w *Window) Restore(times []time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	for _, t := range times {
		if !t.After(now.Add(-w.period)) || t.After(now) {
			continue
		}
		w.times = append(w.times, t)
	}
	slices.SortFunc(w.times, func(a, b time.Time) int { return a.Compare(b) })
	if len(w.times) > MaxRecorded {
		w.times = w.times[len(w.times)-MaxRecorded:]
	}
}

// Reservation is slots of a Window held by one refresh. Its methods are
// safe for concurrent use (a walk takes pages from several goroutines).
type Reservation struct {
	w    *Window
	mu   sync.Mutex
	left int
	used int
}

// Take uses one reserved slot, recording a request made now; it reports
// false when none is left.
func (r *Reservation) Take() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.left == 0 {
		return false
	}
	r.left--
	r.used++
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.w.reserved--
	r.w.times = append(r.w.times, r.w.clock.Now())
	return true
}

// Granted is how many slots the reservation holds in all (used or not).
func (r *Reservation) Granted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.left + r.used
}

// Used is how many slots were taken.
func (r *Reservation) Used() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.used
}

// Release gives back the slots not taken. Calling it more than once is
// harmless.
func (r *Reservation) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.w.reserved -= r.left
	r.left = 0
}
