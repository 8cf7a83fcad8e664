package mintlify

import (
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/leakcheck"
)

// Sweeps run pages in goroutines and retries sleep on timers: every test
// must leave none of them behind (with a grace a loaded machine cannot
// run out of; see leakcheck).
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}
