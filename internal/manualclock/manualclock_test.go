package manualclock

import (
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

func TestManualClockConcurrent(t *testing.T) {
	c := New(t0)
	done := make(chan struct{})
	go func() {
		for range 1000 {
			c.Advance(time.Second)
		}
		close(done)
	}()
	for range 1000 {
		_ = c.Now()
	}
	<-done
	if got := c.Now(); !got.Equal(t0.Add(1000 * time.Second)) {
		t.Fatalf("now %v", got)
	}
	c.Set(t0)
	if !c.Now().Equal(t0) {
		t.Fatal("Set")
	}
}
