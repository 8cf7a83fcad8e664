// Package manualclock is a clock that only moves when a test moves it,
// for the tests of the simulated API, the collector and the commands:
// time-dependent code reads it instead of the wall clock, so tests move
// time forward instead of sleeping. Only tests import it.
package manualclock

import (
	"sync"
	"time"
)

// Clock only moves when told to. It is safe for concurrent use, so a
// test can advance it while a server is handling requests.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock stopped at t.
func New(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (backwards too; sliding windows cope with it).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
