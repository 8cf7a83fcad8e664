//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package engine

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
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestShutdownEndsWhileTheLedgerLockIsHeld: with STATE.lock held by
// someone else for good, a refresh waits for it in the background, and
// Close (what SIGTERM runs) still returns: the wait ends with the
// exporter's context, and the last save does not wait for ever.
func TestShutdownEndsWhileTheLedgerLockIsHeld(t *testing.T) {
	t.Parallel() // its own engine, API and files; it waits on real deadlines or walks long
	state := filepath.Join(t.TempDir(), "state.json")
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}}, Options{StoragePath: state})
	e.refresh()
	testkit.HoldLock(t, statefiles.LedgerFor(state).LockPath())
	e.clock.Advance(3 * time.Minute)
	e.Refresh(t.Context()) // the data is cached: it returns, the refresh waits for the lock
	closed := make(chan struct{})
	go func() {
		e.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-testkit.HangGuard(t).Done():
		t.Fatal("Close did not return while another process held STATE.lock")
	}
}

// TestHeldLedgerLockIsAFailedSave: a lock held for longer than the
// exporter waits is a failed save of the ledger, told to OnSave each time
// and logged once, naming the lock file and the process holding it; the
// state file's saves (no lock) go on, and so do the refreshes; once the
// lock is free, the ledger is written again. (The series that show it are
// tested in collector: TestHeldLedgerLockSaveSeries.)
func TestHeldLedgerLockIsAFailedSave(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	logs := &testkit.LockedBuffer{}
	saves := &saveOutcomes{}
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}},
		Options{StoragePath: state, LockWait: time.Millisecond, Logger: bufLogger(logs), OnSave: saves.observe})
	e.refresh()
	release := testkit.HoldLock(t, statefiles.LedgerFor(state).LockPath())
	before := e.requests(mockapi.EndpointViews)
	_, ledgerGood := saves.counts("ledger")
	stateFailed, stateGood := saves.counts("state")
	for range 3 {
		e.clock.Advance(3 * time.Minute)
		e.refresh()
	}
	if failed, good := saves.counts("ledger"); failed < 3 || good != ledgerGood {
		t.Errorf("%d failed and %d good ledger saves while the lock is held, want at least one failed per refresh (3) and no good one", failed, good-ledgerGood)
	}
	if failed, good := saves.counts("state"); failed != stateFailed || good <= stateGood {
		t.Errorf("the state file's saves (no lock): %d failed, %d good, want none failed", failed-stateFailed, good-stateGood)
	}
	s := logs.String()
	if n := strings.Count(s, "writing the ledger file failed"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, s)
	}
	lockPath := statefiles.LedgerFor(state).LockPath()
	if !strings.Contains(s, lockPath+" is locked by") {
		t.Errorf("the warning does not name %s:\n%s", lockPath, s)
	}
	if strings.Contains(s, "/proc/locks") || (runtime.GOOS == "linux" && !strings.Contains(s, "process "+strconv.Itoa(os.Getpid()))) {
		t.Errorf("the warning does not name the holder (process %d):\n%s", os.Getpid(), s)
	}
	if after := e.requests(mockapi.EndpointViews); after <= before {
		t.Error("no refresh ran while the lock was held")
	}
	release()
	e.clock.Advance(3 * time.Minute)
	e.refresh()
	if !strings.Contains(logs.String(), "the ledger file is written again") {
		t.Errorf("no word of the recovery:\n%s", logs)
	}
	if _, good := saves.counts("ledger"); good == ledgerGood {
		t.Error("the ledger was not written once the lock was free")
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
