package mockapi

import "time"

// Clock lets tests move time forward instead of sleeping (internal/manualclock).
type Clock interface{ Now() time.Time }

// RealClock is the wall clock.
type RealClock struct{}

func (RealClock) Now() time.Time { return time.Now() }
