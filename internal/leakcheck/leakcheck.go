// Package leakcheck is goleak with a grace period that a loaded machine
// cannot run out of. goleak.Find retries for about 0.4 s in all; a
// goroutine that has been told to end (a transport's read loop after
// CloseIdleConnections, a refresh after its context was cancelled) can
// take longer than that to be scheduled under -race on a busy machine,
// and the test would fail for a leak that is not one. Here a goroutine has
// 30 s to end; only a real leak waits that long, so passing runs cost
// nothing extra.
package leakcheck

import (
	"fmt"
	"os"
	"time"

	"go.uber.org/goleak"
)

// grace is how long goroutines still running get to end (a variable for
// this package's own tests).
var grace = 30 * time.Second

// Find is goleak.Find, retried until it finds nothing or 30 s passed.
func Find(options ...goleak.Option) error {
	deadline := time.Now().Add(grace)
	for {
		err := goleak.Find(options...)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// VerifyNone fails t if goroutines other than those options allow are
// still running after 30 s.
func VerifyNone(t interface {
	Helper()
	Error(...any)
}, options ...goleak.Option) {
	t.Helper()
	if err := Find(options...); err != nil {
		t.Error(err)
	}
}

// VerifyTestMain runs the tests, then fails the package if goroutines are
// left over, as goleak.VerifyTestMain does but with the longer grace.
func VerifyTestMain(m interface{ Run() int }, options ...goleak.Option) {
	rc := m.Run()
	if rc == 0 {
		if err := Find(options...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			rc = 1
		}
	}
	os.Exit(rc)
}
