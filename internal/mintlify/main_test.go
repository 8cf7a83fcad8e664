package mintlify

import (
	"testing"

	"go.uber.org/goleak"
)

// Sweeps run pages in goroutines and retries sleep on timers: every test
// must leave none of them behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
