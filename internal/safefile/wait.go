package safefile

import (
	"context"
	"fmt"
	"os"
	"time"
)

// A first retry soon makes a lock held for a moment cheap; later ones, spaced out, cost no CPU.
const (
	pollFirst = time.Millisecond
	pollMax   = 100 * time.Millisecond
)

// LockContext takes an exclusive flock(2) on f until ctx ends, polling so no goroutine stays blocked on f.
func LockContext(ctx context.Context, f *os.File) error {
	pause := pollFirst
	var timer *time.Timer
	for {
		got, err := TryLock(f)
		if err != nil || got {
			return err
		}
		if timer == nil {
			timer = time.NewTimer(pause)
			defer timer.Stop()
		} else {
			timer.Reset(pause)
		}
		select {
		case <-ctx.Done():
			return &HeldError{Path: f.Name(), Holders: Holders(f), Err: context.Cause(ctx)}
		case <-timer.C:
		}
		pause = min(2*pause, pollMax)
	}
}

// HeldError is a lock another process held for as long as the caller would wait.
type HeldError struct {
	Path    string // the locked file
	Holders []int  // the process ids holding it, where the system says (Linux)
	Err     error  // why the wait ended: the context's error
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is locked by %s", e.Path, describeHolders(e.Holders))
}

func (e *HeldError) Unwrap() error { return e.Err }

func describeHolders(pids []int) string {
	switch len(pids) {
	case 0:
		return "another process"
	case 1:
		return fmt.Sprintf("process %d", pids[0])
	default:
		return fmt.Sprintf("processes %v", pids)
	}
}
