package leakcheck

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A goroutine that ends later than goleak's own retries allow (about
// 0.4 s) is not a leak.
func TestSlowEndingGoroutineIsNotALeak(t *testing.T) {
	before := goleak.IgnoreCurrent()
	stop := make(chan struct{})
	go func() { <-stop }()
	time.AfterFunc(time.Second, func() { close(stop) })
	if err := Find(before); err != nil {
		t.Fatal(err)
	}
}

type recorder struct{ errs []any }

func (r *recorder) Helper()        {}
func (r *recorder) Error(a ...any) { r.errs = append(r.errs, a...) }

// A goroutine that never ends is reported once the grace has passed.
func TestLeakIsReported(t *testing.T) {
	defer func(g time.Duration) { grace = g }(grace)
	grace = 200 * time.Millisecond
	before := goleak.IgnoreCurrent()
	stop := make(chan struct{})
	defer close(stop)
	go func() { <-stop }()
	var r recorder
	VerifyNone(&r, before)
	if len(r.errs) == 0 {
		t.Fatal("a goroutine that never ends was not reported")
	}
}
