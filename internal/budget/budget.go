// Package budget counts requests against Mintlify's hourly analytics allowance with a sliding
// log, not x/time/rate: a token bucket lets burst + rate·1h through in one hour, up to twice the
// allowance, which the upstream answers with 429s.
package budget

import (
	"slices"
	"sync"
	"time"
)

type Clock interface{ Now() time.Time }

// Window is a sliding one-hour request allowance, safe for concurrent use.
type Window struct {
	clock  Clock
	period time.Duration

	mu       sync.Mutex
	limit    int
	times    []time.Time // request times inside the period, oldest first
	reserved int         // slots held by reservations, not yet used
	// foreign: other processes' requests with this key (backfill, via the state file); not in Times.
	foreign []time.Time
}

const Period = time.Hour

// MaxRecorded is far above any upstream limit, so a corrupt state file cannot hold millions.
const MaxRecorded = 10_000

func New(limit int, clock Clock) *Window {
	return &Window{clock: clock, period: Period, limit: min(max(limit, 0), MaxRecorded)}
}

func (w *Window) SetLimit(limit int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.limit = min(max(limit, 0), MaxRecorded)
}

func (w *Window) expire(now time.Time) {
	w.times = expireBefore(w.times, now.Add(-w.period))
	w.foreign = expireBefore(w.foreign, now.Add(-w.period))
}

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

// SetForeign replaces other processes' requests; times outside the window are dropped.
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

func (w *Window) all() []time.Time {
	if len(w.foreign) == 0 {
		return w.times
	}
	out := append(slices.Clone(w.times), w.foreign...)
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

func (w *Window) Used() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	return len(w.times) + len(w.foreign)
}

func (w *Window) Available() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	return w.available()
}

func (w *Window) available() int {
	return max(w.limit-len(w.times)-len(w.foreign)-w.reserved, 0)
}

// TryTake makes one request outside any reservation if there is room.
func (w *Window) TryTake() bool {
	r := w.Reserve(1)
	ok := r.Take()
	r.Release()
	return ok
}

// Reserve holds up to n slots (fewer when there is less room) so that two refreshes never race
// for the same slots; they count as used until taken or released.
func (w *Window) Reserve(n int) *Reservation {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expire(w.clock.Now())
	n = min(max(n, 0), w.available())
	w.reserved += n
	return &Reservation{w: w, left: n}
}

// FreeAt is when n requests will be available: now if they are, zero if n exceeds the limit.
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
		// Reservations in flight hold the rest; they end within a refresh timeout.
		if len(all) == 0 {
			return now.Add(time.Minute)
		}
		return all[len(all)-1].Add(w.period)
	}
	return all[over-1].Add(w.period)
}

// Times counts reserved slots as made now: a state file written mid-refresh must not undercount
// if the process dies before they are used.
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

// Reservation is one refresh's slots, safe for concurrent use (a walk takes pages in parallel).
type Reservation struct {
	w    *Window
	mu   sync.Mutex
	left int
	used int
}

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

func (r *Reservation) Granted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.left + r.used
}

func (r *Reservation) Used() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.used
}

// Release gives back the slots not taken; calling it twice is harmless.
func (r *Reservation) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.w.reserved -= r.left
	r.left = 0
}
