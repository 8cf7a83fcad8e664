package budget

import (
	"sync"
	"testing"
	"time"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestWindowSlides(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	w := New(3, clk)
	for i := range 3 {
		if !w.TryTake() {
			t.Fatalf("take %d refused", i)
		}
		clk.Advance(10 * time.Minute)
	}
	// t=30m: 3 used, the first at t=0.
	if w.TryTake() || w.Available() != 0 || w.Used() != 3 {
		t.Fatalf("over the limit: available %d used %d", w.Available(), w.Used())
	}
	if got, want := w.FreeAt(1), clk.t.Add(-30*time.Minute).Add(time.Hour); !got.Equal(want) {
		t.Fatalf("FreeAt(1) = %v, want %v", got, want)
	}
	if got, want := w.FreeAt(2), clk.t.Add(-20*time.Minute).Add(time.Hour); !got.Equal(want) {
		t.Fatalf("FreeAt(2) = %v, want %v", got, want)
	}
	if !w.FreeAt(4).IsZero() {
		t.Fatal("FreeAt beyond the limit should be zero")
	}
	clk.Advance(30*time.Minute - time.Nanosecond) // just before the first leaves
	if w.TryTake() {
		t.Fatal("took a request before the oldest left the window")
	}
	clk.Advance(time.Nanosecond)
	if !w.TryTake() || w.Used() != 3 {
		t.Fatalf("expected a free slot at exactly one hour; used %d", w.Used())
	}
	if w.FreeAt(0) != clk.Now() {
		t.Fatal("FreeAt(0) should be now")
	}
}

func TestNeverMoreThanLimitInAnyHour(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	w := New(100, clk)
	var taken []time.Time
	// Try every 7 seconds for 5 hours.
	for range 5 * 3600 / 7 {
		if w.TryTake() {
			taken = append(taken, clk.Now())
		}
		clk.Advance(7 * time.Second)
	}
	for i := range taken {
		n := 0
		for j := i; j < len(taken) && taken[j].Sub(taken[i]) < time.Hour; j++ {
			n++
		}
		if n > 100 {
			t.Fatalf("%d requests in the hour from %v", n, taken[i])
		}
	}
	if len(taken) < 450 {
		t.Fatalf("only %d taken in 5h; the window should refill", len(taken))
	}
}

func TestSetLimitAndConcurrency(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	w := New(50, clk)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if w.TryTake() {
					mu.Lock()
					got++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if got != 50 || w.Used() != 50 {
		t.Fatalf("took %d, used %d; want 50", got, w.Used())
	}
	w.SetLimit(60)
	if w.Available() != 10 {
		t.Fatalf("available %d after raising the limit to 60 with 50 used", w.Available())
	}
	for i := range 10 {
		if !w.TryTake() {
			t.Fatalf("take %d of the 10 the raised limit allows refused", i+1)
		}
	}
	if w.TryTake() || w.Used() != 60 {
		t.Fatalf("a take past the raised limit of 60 was granted (used %d)", w.Used())
	}
}

func TestReservationsNeverOverlap(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	w := New(10, clk)
	a := w.Reserve(7)
	b := w.Reserve(7) // only 3 left: a second refresh cannot take a's slots
	if a.Granted() != 7 || b.Granted() != 3 || w.Available() != 0 {
		t.Fatalf("granted %d and %d, available %d", a.Granted(), b.Granted(), w.Available())
	}
	if w.TryTake() {
		t.Fatal("a request outside the reservations took a reserved slot")
	}
	for range 2 {
		if !a.Take() {
			t.Fatal("reserved slot refused")
		}
	}
	clk.Advance(10 * time.Minute)
	a.Release() // 5 unused come back
	if w.Available() != 5 || w.Used() != 2 {
		t.Fatalf("after release: available %d used %d", w.Available(), w.Used())
	}
	if a.Take() {
		t.Fatal("took from a released reservation")
	}
	for range 3 {
		b.Take()
	}
	if b.Take() {
		t.Fatal("took more than granted")
	}
	// Requests are recorded when made, not when reserved: b's three leave
	// the window an hour after t=10m.
	if got, want := w.FreeAt(6), time.Unix(0, 0).Add(time.Hour); !got.Equal(want) {
		t.Fatalf("FreeAt(6) = %v, want %v", got, want)
	}
	if got, want := w.FreeAt(10), time.Unix(0, 0).Add(70*time.Minute); !got.Equal(want) {
		t.Fatalf("FreeAt(10) = %v, want %v", got, want)
	}
	clk.Advance(50 * time.Minute)
	if w.Used() != 3 {
		t.Fatalf("used %d at t=60m, want the 3 made at t=10m", w.Used())
	}
}

func TestTimesAndRestore(t *testing.T) {
	clk := &fakeClock{t: time.Unix(10_000, 0)}
	w := New(5, clk)
	w.TryTake()
	r := w.Reserve(2)
	got := w.Times()
	if len(got) != 3 {
		t.Fatalf("Times = %v: a reservation in flight must count as spent", got)
	}
	r.Release()

	w2 := New(5, clk)
	now := clk.Now()
	w2.Restore([]time.Time{now.Add(-2 * time.Hour), now.Add(-30 * time.Minute), now.Add(time.Hour), now.Add(-time.Minute)})
	if w2.Used() != 2 {
		t.Fatalf("restored %d, want the 2 inside the window (not the old or the future one)", w2.Used())
	}
	if want := now.Add(30 * time.Minute); !w2.FreeAt(4).Equal(want) {
		t.Fatalf("FreeAt(4) = %v, want %v", w2.FreeAt(4), want)
	}
}

// TestWindowForeign: requests another process made with the key count
// against the allowance and in FreeAt, but are not the window's own.
func TestWindowForeign(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &fakeClock{t: start}
	w := New(4, clk)
	if !w.TryTake() {
		t.Fatal("take refused")
	}
	clk.Advance(10 * time.Minute)
	w.SetForeign([]time.Time{start.Add(5 * time.Minute), start.Add(-2 * time.Hour), start.Add(2 * time.Hour), start.Add(7 * time.Minute)})
	if w.Used() != 3 || w.Available() != 1 {
		t.Fatalf("used %d available %d, want 3 and 1 (the foreign ones outside the hour dropped)", w.Used(), w.Available())
	}
	if !w.TryTake() || w.TryTake() {
		t.Fatal("the fourth slot should be the last")
	}
	if got, want := w.FreeAt(1), start.Add(time.Hour); !got.Equal(want) {
		t.Errorf("FreeAt(1) = %v, want %v (the own request at 0)", got, want)
	}
	if got, want := w.FreeAt(2), start.Add(65*time.Minute); !got.Equal(want) {
		t.Errorf("FreeAt(2) = %v, want %v (the foreign one at 5m)", got, want)
	}
	if n := len(w.Times()); n != 2 {
		t.Errorf("Times has %d entries, want the 2 own requests", n)
	}
	w.SetForeign(nil)
	if w.Used() != 2 {
		t.Errorf("used %d after the foreign requests are gone, want 2", w.Used())
	}
}
