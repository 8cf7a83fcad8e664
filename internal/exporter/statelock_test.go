//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package exporter_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestHeldLedgerLockSaveSeries: while STATE.lock is held for longer
// than the exporter waits, the ledger's save series say so (failures
// counted each time, success 0, the last success the first scrape's)
// while the state file's show its saves working; once the lock is free,
// success is 1 again, as of now. (What the engine does and logs is
// TestHeldLedgerLockIsAFailedSave, in internal/engine.)
func TestHeldLedgerLockSaveSeries(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""), envOpts{statePath: state, withAPIM: true,
		lockWait: time.Millisecond, sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	e.scrape()
	release := testkit.HoldLock(t, statefiles.LedgerFor(state).LockPath())
	for range 3 {
		e.clock.Advance(3 * time.Minute)
		e.scrape()
	}
	out := e.gather()
	if got := mustValue(t, out, `mintlify_exporter_state_save_failures_total{file="ledger"}`); got < 3 {
		t.Errorf("%v failed ledger saves counted, want at least one per refresh (3)", got)
	}
	if got := mustValue(t, out, `mintlify_exporter_state_save_success{file="ledger"}`); got != 0 {
		t.Errorf("mintlify_exporter_state_save_success{file=\"ledger\"} = %v while the lock is held, want 0", got)
	}
	lastOK := mustValue(t, out, `mintlify_exporter_state_last_save_success_timestamp_seconds{file="ledger"}`)
	if lastOK != float64(epoch.Unix()) {
		t.Errorf("last ledger save %v, want the first scrape's (%d)", lastOK, epoch.Unix())
	}
	if got := mustValue(t, out, `mintlify_exporter_state_save_success{file="state"}`); got != 1 {
		t.Errorf("the state file's saves (no lock) = %v, want 1", got)
	}
	release()
	e.clock.Advance(3 * time.Minute)
	e.scrape()
	out = e.gather()
	if got := mustValue(t, out, `mintlify_exporter_state_save_success{file="ledger"}`); got != 1 {
		t.Errorf("mintlify_exporter_state_save_success{file=\"ledger\"} = %v once written, want 1", got)
	}
	if got := mustValue(t, out, `mintlify_exporter_state_last_save_success_timestamp_seconds{file="ledger"}`); got != float64(e.clock.Now().Unix()) {
		t.Errorf("last ledger save %v, want now (%d)", got, e.clock.Now().Unix())
	}
}
