//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package collector_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// holdLock takes STATE.lock as another process would (flock locks belong
// to an open file description) until the test ends or release is called.
func holdLock(t *testing.T, state string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(statefiles.LedgerFor(state).LockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := safefile.Lock(f, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return func() { _ = safefile.Unlock(f) }
}

// TestShutdownEndsWhileTheLedgerLockIsHeld: with STATE.lock held by
// someone else for good, a refresh waits for it in the background, and
// Close (what SIGTERM runs) still returns: the wait ends with the
// exporter's context, and the last save does not wait for ever.
func TestShutdownEndsWhileTheLedgerLockIsHeld(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""), envOpts{statePath: state,
		sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	e.scrape()
	holdLock(t, state)
	e.clock.Advance(3 * time.Minute)
	e.exp.Refresh(t.Context()) // the data is cached: it returns, the refresh waits for the lock
	closed := make(chan struct{})
	go func() {
		e.exp.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-testkit.HangGuard(t).Done():
		t.Fatal("Close did not return while another process held STATE.lock")
	}
}

// TestHeldLedgerLockIsAFailedSave: a lock held for longer than the
// exporter waits is a failed save of the ledger, counted each time and
// logged once, naming the lock file and the process holding it; the
// refreshes go on; once the lock is free, the ledger is written again.
func TestHeldLedgerLockIsAFailedSave(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newEnv(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""), envOpts{statePath: state, withAPIM: true,
		lockWait: time.Millisecond, sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}})
	e.scrape()
	release := holdLock(t, state)
	before := e.requests(mockapi.EndpointViews)
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
	logs := e.logs.String()
	if n := strings.Count(logs, "writing the ledger file failed"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logs)
	}
	lockPath := statefiles.LedgerFor(state).LockPath()
	if !strings.Contains(logs, lockPath+" is locked by") {
		t.Errorf("the warning does not name %s:\n%s", lockPath, logs)
	}
	if strings.Contains(logs, "/proc/locks") || (runtime.GOOS == "linux" && !strings.Contains(logs, "process "+strconv.Itoa(os.Getpid()))) {
		t.Errorf("the warning does not name the holder (process %d):\n%s", os.Getpid(), logs)
	}
	if after := e.requests(mockapi.EndpointViews); after <= before {
		t.Error("no refresh ran while the lock was held")
	}
	release()
	e.clock.Advance(3 * time.Minute)
	e.scrape()
	if !strings.Contains(e.logs.String(), "the ledger file is written again") {
		t.Errorf("no word of the recovery:\n%s", e.logs)
	}
	out = e.gather()
	if got := mustValue(t, out, `mintlify_exporter_state_save_success{file="ledger"}`); got != 1 {
		t.Errorf("mintlify_exporter_state_save_success{file=\"ledger\"} = %v once written, want 1", got)
	}
	if got := mustValue(t, out, `mintlify_exporter_state_last_save_success_timestamp_seconds{file="ledger"}`); got != float64(e.clock.Now().Unix()) {
		t.Errorf("last ledger save %v, want now (%d)", got, e.clock.Now().Unix())
	}
}

// TestDeletedOwnerFileStillRefusesASecondExporter: ownership is the first
// exporter's lock, held for as long as it runs, not the owner file:
// deleting STATE.owner does not let a second exporter start on the same
// files, and the refusal names the first. Once the first stops, another
// starts.
func TestDeletedOwnerFileStillRefusesASecondExporter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the deleted owner file's lock is found through /proc (Linux)")
	}
	clock := manualclock.New(epoch)
	api := testAPI(t, clock, 5)
	path := filepath.Join(t.TempDir(), "state.json")
	first, _, err := startAt(t, api, path, clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + ".owner"); err != nil {
		t.Fatal(err)
	}
	_, _, err = startAt(t, api, path, clock)
	if err == nil || !strings.Contains(err.Error(), "in use by another exporter") || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second exporter after the owner file was deleted: %v", err)
	}
	first.Close()
	if _, _, err := startAt(t, api, path, clock); err != nil {
		t.Fatalf("after the first stopped: %v", err)
	}
}
