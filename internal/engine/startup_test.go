package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// Tests of the state files at start-up and while the engine runs: what
// --storage.path may be, who holds it, and what is read from it.

// epoch is the simulated API's and the engines' start.
var epoch = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// startAt builds an engine of oneProject against api with its state at
// path, and returns it or New's error, and its log.
func startAt(t *testing.T, api *mockapi.Running, path string, clock Clock) (*Engine, *testkit.LockedBuffer, error) {
	t.Helper()
	cfg, err := config.Parse([]byte(fmt.Sprintf(oneProject, api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.LockedBuffer{}
	e, err := New(cfg, Options{Collectors: collector.All,
		Clock:       clock,
		Getenv:      func(k string) string { return map[string]string{"TEST_MINTLIFY_KEY": testKey}[k] },
		Logger:      bufLogger(logs),
		StoragePath: path,
		RetryBase:   time.Millisecond,
	})
	if err == nil {
		t.Cleanup(e.Close)
	}
	return e, logs, err
}

// testAPI is a simulated API of proj-docs with paths paths, on clock.
func testAPI(t *testing.T, clock *manualclock.Clock, paths int) *mockapi.Running {
	t.Helper()
	return testkit.StartAPI(t, mockapi.Options{
		Clock:    clock,
		Keys:     []mockapi.KeySpec{{Key: testKey, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: paths}},
	})
}

// TestStatePathNotAFileIsRefused: a symbolic link, a FIFO or a directory
// at --storage.path (or where its ledger, lock or owner file goes) stops
// start-up with an error naming it, and is never opened nor replaced; a
// FIFO does not hang start-up.
func TestStatePathNotAFileIsRefused(t *testing.T) {
	clock := manualclock.New(epoch)
	api := testAPI(t, clock, 5)
	for _, suffix := range []string{"", ".ledger", ".lock", ".owner"} {
		for _, what := range []string{"symbolic link", "FIFO", "directory"} {
			t.Run(what+" at STATE"+suffix, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "state.json")
				at := path + suffix
				var err error
				switch what {
				case "symbolic link":
					err = os.Symlink(filepath.Join(dir, "elsewhere"), at)
				case "FIFO":
					err = syscall.Mkfifo(at, 0o600)
				default:
					err = os.Mkdir(at, 0o700)
				}
				if err != nil {
					t.Fatal(err)
				}
				_, _, err = startAt(t, api, path, clock)
				if err == nil || !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), what) {
					t.Fatalf("start-up: %v", err)
				}
				if fi, _ := os.Lstat(at); fi.Mode().IsRegular() {
					t.Error("replaced by a regular file")
				}
				if _, err := os.Lstat(filepath.Join(dir, "elsewhere")); err == nil {
					t.Error("written through the link")
				}
			})
		}
	}
}

// TestStatePathCharacterDeviceIsRefused: --storage.path=/dev/full style
// (a character device) stops start-up and is left as it was. Making a
// device needs root, which CI has.
func TestStatePathCharacterDeviceIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "full")
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o600, 1<<8|7); err != nil {
		if toolcheck.InCI() {
			t.Fatalf("making a character device (CI runs as root): %v", err)
		}
		t.Skipf("making a character device needs root: %v", err)
	}
	clock := manualclock.New(epoch)
	_, _, err := startAt(t, testAPI(t, clock, 5), path, clock)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "character device") {
		t.Fatalf("start-up: %v", err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Error("the device was replaced")
	}
	if _, err := os.Lstat(path + ".lock"); err == nil {
		t.Error("a lock file was made beside the device")
	}
}

// TestSecondExporterIsRefused: a second exporter on the same state files
// is refused at start-up, naming the first's process; the backfill still
// shares the ledger beside it; once the first stops, another may start.
func TestSecondExporterIsRefused(t *testing.T) {
	clock := manualclock.New(epoch)
	api := testAPI(t, clock, 5)
	path := filepath.Join(t.TempDir(), "state.json")
	first, _, err := startAt(t, api, path, clock)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = startAt(t, api, path, clock)
	if err == nil || !strings.Contains(err.Error(), "in use by another exporter") || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second exporter: %v", err)
	}
	w := budget.New(10, clock)
	if _, err := statefiles.LedgerFor(path).Take(t.Context(), "fp", "backfill", w, clock.Now()); err != nil {
		t.Fatalf("the backfill cannot share the ledger beside the exporter: %v", err)
	}
	first.Close()
	if _, _, err := startAt(t, api, path, clock); err != nil {
		t.Fatalf("after the first stopped: %v", err)
	}
}

// TestFutureTimesAreClamped: a state file and ledger whose times lie a
// year ahead neither pause the key for a year, nor stop the refreshes,
// nor count as fresh data for ever: the back-off ends within the hour,
// the requests count as made now, the next refresh is due within
// max_refresh_interval, and one warning says so.
func TestFutureTimesAreClamped(t *testing.T) {
	clock := manualclock.New(epoch)
	api := testAPI(t, clock, 5)
	path := filepath.Join(t.TempDir(), "state.json")
	year := epoch.Add(365 * 24 * time.Hour)
	e, _, err := startAt(t, api, path, clock)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	fp := statefiles.Fingerprint(testKey)
	keys := statefiles.Keys{}
	keys.Set(fp, statefiles.Exporter, []time.Time{year, year})
	entry := keys[fp]
	entry.PausedUntil = year
	keys[fp] = entry
	if err := statefiles.LedgerFor(path).Write(year, keys); err != nil {
		t.Fatal(err)
	}
	unit := fmt.Sprintf(`{"health":{"next_refresh":%q,"last_success":%q},"round":%q,"windows":{"month":{"data_time":%q,"hint":1}}}`,
		year.Format(time.RFC3339), year.Format(time.RFC3339), year.Format(time.RFC3339), year.Format(time.RFC3339))
	state := fmt.Sprintf(`{"kind":"mintlify_exporter state","version":3,"saved":%q,"units":{"proj-docs/pageviews":%s}}`, year.Format(time.RFC3339), unit)
	if err := os.WriteFile(path, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	e, logs, err := startAt(t, api, path, clock)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "ignoring the state file") {
		t.Fatalf("the state file was not read, so its times were not tested:\n%s", logs)
	}
	if n := strings.Count(logs.String(), "hold times in the future"); n != 1 {
		t.Errorf("%d warnings about times in the future, want 1:\n%s", n, logs)
	}
	before := api.Server.CountRequests(nil)
	// max_refresh_interval is 6h by default: by then a refresh has run,
	// the back-off (at most an hour) being over.
	for range 7 {
		clock.Advance(time.Hour)
		e.Refresh(t.Context())
		e.Wait()
	}
	if api.Server.CountRequests(nil) == before {
		t.Fatal("no refresh in 7 hours: a time from the future still holds the exporter")
	}
	for _, u := range e.View().Units {
		if got := u.Health().LastSuccess; got.After(clock.Now()) {
			t.Errorf("%s: last success %v is after now %v", u.Collector().Name, got, clock.Now())
		}
	}
}

// TestStaleTemporaryFilesAreRemoved: the temporary files that saves killed
// mid-way left beside the state file and the ledger are removed at
// start-up, and nothing else is.
func TestStaleTemporaryFilesAreRemoved(t *testing.T) {
	clock := manualclock.New(epoch)
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	debris := []string{".state.json.1234.tmp", ".state.json.99.tmp", ".state.json.ledger.5678.tmp"}
	kept := []string{"notes.txt", ".state.json.bak"}
	for _, name := range append(append([]string{}, debris...), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := startAt(t, testAPI(t, clock, 5), path, clock); err != nil {
		t.Fatal(err)
	}
	for _, name := range debris {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s left", name)
		}
	}
	for _, name := range kept {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s removed", name)
		}
	}
}

// TestHugeStateFileIsNotRead: a 1 GiB (sparse) state file is refused
// from its size, before it is read: start-up allocates next to nothing
// for it, warns, and goes on without it.
func TestHugeStateFileIsNotRead(t *testing.T) {
	clock := manualclock.New(epoch)
	api := testAPI(t, clock, 5)
	path := filepath.Join(t.TempDir(), "state.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, logs, err := startAt(t, api, path, clock)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("start-up allocated %d MiB: the file was read", grown>>20)
	}
	if !strings.Contains(logs.String(), "ignoring the state file") || !strings.Contains(logs.String(), "more than the") {
		t.Errorf("no warning naming the size:\n%s", logs)
	}
}

// refreshReturns runs Refresh under ctx and reports ctx's error as it was
// when Refresh returned: nil if it did not wait for the deadline. A
// Refresh that hangs fails the test at the test binary's own deadline.
func refreshReturns(t *testing.T, e *Engine, ctx context.Context) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		e.Refresh(ctx)
		done <- ctx.Err()
	}()
	guard := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		guard, cancel = context.WithDeadline(guard, d.Add(-time.Until(d)/10))
		defer cancel()
	}
	select {
	case err := <-done:
		return err
	case <-guard.Done():
		t.Fatal("Refresh never returned")
		return nil
	}
}

// TestScrapeDoesNotWaitWithData: when the cache holds data, a scrape
// answers at once, however long the refresh it started takes; with no
// data it waits, but not for a refresh that has already run longer than
// one scrape's time.
func TestScrapeDoesNotWaitWithData(t *testing.T) {
	t.Parallel() // its own engine, API and files; it waits on real deadlines or walks long
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}}, Options{})
	e.refresh()
	e.clock.Advance(4 * time.Hour) // due again, data stale
	e.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Latency: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := refreshReturns(t, e.Engine, ctx); err != nil {
		t.Fatalf("with data cached, the scrape waited for the slow refresh: %v", err)
	}

	// No data yet: the first scrape waits (to its deadline), the next
	// one does not wait again for the refresh that outlived it.
	f := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}}, Options{})
	arrived := make(chan string, 1)
	f.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Latency: time.Hour, Arrived: arrived})
	// The refresh began before its request reached the API: the time it
	// arrived bounds the refresh's start from above, whatever the load.
	guard := testkit.HangGuard(t)
	arrivedAt := make(chan time.Time, 1)
	go func() {
		select {
		case <-arrived:
			arrivedAt <- time.Now()
		case <-guard.Done():
		}
	}()
	first, cancelFirst := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancelFirst()
	if err := refreshReturns(t, f.Engine, first); err == nil {
		t.Fatal("with nothing cached, the first scrape did not wait for the refresh")
	}
	var since time.Time
	select {
	case since = <-arrivedAt:
	case <-guard.Done():
		t.Fatal("the refresh never sent its views request")
	}
	// A scrape given no more time than the refresh has already run (at
	// least time.Since(since)) must not wait for it.
	second, cancelSecond := context.WithTimeout(context.Background(), time.Since(since))
	defer cancelSecond()
	if err := refreshReturns(t, f.Engine, second); err != nil {
		t.Fatalf("the second scrape waited again for a refresh older than a scrape: %v", err)
	}
}

// TestWalkSizesReachTheLedger: once a month walk of page views is
// complete, its pages are in the ledger for the backfill's estimate.
func TestWalkSizesReachTheLedger(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	e := newTestEngine(t, oneProject, mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}}, Options{StoragePath: state})
	e.refresh()
	sites, err := statefiles.LedgerFor(state).Sites()
	if err != nil {
		t.Fatal(err)
	}
	if sites["proj-docs"] != 3 {
		t.Errorf("the ledger records %v, want proj-docs: 3 pages (600 paths)", sites)
	}
}

// TestKeysAreReadOncePerApply: New reads each key once, and ApplyKeys
// (a reload whose keys were read under its deadline) reads none again.
func TestKeysAreReadOncePerApply(t *testing.T) {
	clock := manualclock.New(epoch)
	api := testAPI(t, clock, 5)
	cfg, err := config.Parse([]byte(fmt.Sprintf(oneProject, api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	getenv := func(k string) string {
		if k == "TEST_MINTLIFY_KEY" {
			reads++
			return testKey
		}
		return ""
	}
	exp, err := New(cfg, Options{Collectors: collector.All, Clock: clock, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	if reads != 1 {
		t.Errorf("New read the key %d times, want 1", reads)
	}
	keys, err := cfg.ResolveKeys(getenv)
	if err != nil {
		t.Fatal(err)
	}
	reads = 0
	if err := exp.ApplyKeys(cfg, keys); err != nil || reads != 0 {
		t.Errorf("ApplyKeys read the key %d times (%v), want 0", reads, err)
	}
}

// saveOutcomes counts the writes OnSave is told of, by file and outcome.
type saveOutcomes struct {
	mu     sync.Mutex
	failed map[string]int
	good   map[string]int
}

func (s *saveOutcomes) observe(file string, err error, _ time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == nil {
		s.failed, s.good = map[string]int{}, map[string]int{}
	}
	if err != nil {
		s.failed[file]++
	} else {
		s.good[file]++
	}
}

func (s *saveOutcomes) counts(file string) (failed, good int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed[file], s.good[file]
}

// TestFailedSavesAreCountedAndLoggedOnce: while the state file cannot be
// written (something else took its place), every failed save is told to
// OnSave, but logged once, with a true message; the first good save
// after says so. (The series that counts them is tested in collector:
// TestSaveFailuresSeriesCountsEachFailedSave.)
func TestFailedSavesAreCountedAndLoggedOnce(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	logs := &testkit.LockedBuffer{}
	saves := &saveOutcomes{}
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}},
		Options{StoragePath: state, Logger: bufLogger(logs), OnSave: saves.observe})
	e.refresh()
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(state, 0o700); err != nil { // someone else's directory
		t.Fatal(err)
	}
	for range 3 {
		e.clock.Advance(3 * time.Minute)
		e.refresh()
	}
	if failed, _ := saves.counts("state"); failed < 3 {
		t.Errorf("%v failed saves told, want one per refresh (3)", failed)
	}
	if n := strings.Count(logs.String(), "writing the state file failed"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logs)
	}
	if strings.Contains(logs.String(), "start afresh") || !strings.Contains(logs.String(), "a restart would load the last one written") {
		t.Error("the warning does not say what a restart does")
	}
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	_, goodBefore := saves.counts("state")
	e.clock.Advance(3 * time.Minute)
	e.refresh()
	if !strings.Contains(logs.String(), "the state file is written again") {
		t.Errorf("no word of the recovery:\n%s", logs)
	}
	if fi, err := os.Lstat(state); err != nil || !fi.Mode().IsRegular() {
		t.Error("the state file was not written once it could be")
	}
	if _, good := saves.counts("state"); good <= goodBefore {
		t.Error("the good save was not told to OnSave")
	}
}
