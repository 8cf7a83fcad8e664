package engine

import (
	"context"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// TestJobPollTokensFollowTheEngineClock: the job poll limiter refills by
// the engine's clock, so a fake clock's seconds give tokens at once
// (here even under a cancelled context, which only a wait would see),
// and a token not yet due at the fake instant waits and gives up with the
// context, handing its token back.
func TestJobPollTokensFollowTheEngineClock(t *testing.T) {
	l := rate.NewLimiter(jobPollRate, jobPollBurst)
	now := epoch
	for i := range jobPollBurst {
		if err := waitToken(context.Background(), l, now); err != nil {
			t.Fatalf("burst token %d: %v", i, err)
		}
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitToken(done, l, now); err == nil {
		t.Fatal("a token past the burst at the same instant was given without waiting")
	}
	for i := range 20 {
		now = now.Add(time.Second)
		if err := waitToken(done, l, now); err != nil {
			t.Fatalf("token %d, a fake second later: %v (waited on the wall clock)", i, err)
		}
	}
}
