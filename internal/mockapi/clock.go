package mockapi

import "time"

// Clock tells the simulated API what time it is. Everything time-dependent
// (job status, rate-limit windows, default date ranges, request timestamps)
// reads it, so tests can move time forward instead of sleeping
// (internal/manualclock).
type Clock interface{ Now() time.Time }

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }
