package exporter_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

const (
	testKey    = "mint_collectortestkey42"
	testKeyEnv = "TEST_MINTLIFY_KEY"
)

// epoch is a fixed start so golden output and windows are reproducible.
var epoch = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

type env struct {
	t     *testing.T
	clock *manualclock.Clock
	api   *mockapi.Running
	exp   *exporter.Exporter
	reg   *prometheus.Registry
	logs  *testkit.LockedBuffer
	// getenv is where the exporter looks keys up; a test may swap it to
	// "rotate" a key before a reload.
	getenv func(string) string
	// cfg and opts built exp; restart builds a new exporter from them.
	cfg  *config.Config
	opts exporter.Options
}

type envOpts struct {
	sites    map[string]mockapi.Site
	mock     func(*mockapi.Options)
	getenv   func(string) string
	withAPIM bool // register the request metrics (durations are not reproducible)
	// statePath is the exporter's state file; "" keeps none.
	statePath string
	// lockWait bounds the exporter's waits for the ledger's lock; 0 for
	// the ledger's own bound.
	lockWait time.Duration
}

// newEnv starts a simulated API and an exporter configured by yamlCfg, in
// which %s stands for the API URL. An env shares nothing with another (its
// own API, clock, registry, logs and files), so the tests that simulate
// hours of refreshes call t.Parallel and run side by side once the
// sequential tests are done; a test that measures the whole process (its
// heap) stays sequential.
func newEnv(t *testing.T, yamlCfg string, o envOpts) *env {
	t.Helper()
	clock := manualclock.New(epoch)
	mo := mockapi.Options{
		Clock:    clock,
		Keys:     []mockapi.KeySpec{{Key: testKey, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: o.sites,
	}
	if o.mock != nil {
		o.mock(&mo)
	}
	api := testkit.StartAPI(t, mo)
	cfg, err := config.Parse([]byte(fmt.Sprintf(yamlCfg, api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	getenv := o.getenv
	if getenv == nil {
		getenv = func(k string) string {
			if k == testKeyEnv {
				return testKey
			}
			return ""
		}
	}
	logs := &testkit.LockedBuffer{}
	reg := prometheus.NewPedanticRegistry()
	e := &env{t: t, clock: clock, api: api, reg: reg, logs: logs, getenv: getenv}
	opts := exporter.Options{Options: engine.Options{Collectors: collector.All,
		Clock:     clock,
		Getenv:    func(k string) string { return e.getenv(k) },
		Logger:    slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		RetryBase: time.Millisecond,
		ReadTrackedJobs: func(path string) ([]string, error) {
			b, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				return nil, nil
			}
			return strings.Fields(string(b)), err
		},
		LockWait: o.lockWait,
	}}
	if o.withAPIM {
		opts.Registerer = reg
	}
	opts.StoragePath = o.statePath
	exp, err := exporter.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(exp.Close)
	reg.MustRegister(exp)
	e.exp, e.cfg, e.opts = exp, cfg, opts
	return e
}

// scrape runs one scrape as the handler does: refresh what is due, wait for
// it, then gather. It returns the text exposition.
func (e *env) scrape() string {
	e.t.Helper()
	e.exp.Refresh(context.Background())
	e.exp.Wait()
	return e.gather()
}

// gather is the text of every metric the registry gathers.
func (e *env) gather() string {
	e.t.Helper()
	return e.gatherOnly()
}

// gatherOnly is gather's text of the metrics named (all when none is),
// without the others' series: the registry is gathered whole, and
// checked, as by gather, but only these families are written out, which
// is most of gather's time when a site's paths make tens of thousands of
// series.
func (e *env) gatherOnly(names ...string) string {
	e.t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		e.t.Fatalf("gather: %v", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if len(names) > 0 && !slices.Contains(names, mf.GetName()) {
			continue
		}
		if err := enc.Encode(mf); err != nil {
			e.t.Fatal(err)
		}
	}
	return buf.String()
}

// value returns the value of one series of the exposition out, named by
// its text form (name and labels in order), and whether it exists. Kept
// although testutil exists: testutil.ToFloat64 wants a collector with
// exactly one series, and the exporter emits thousands.
func value(out, series string) (float64, bool) {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

func mustValue(t *testing.T, out, series string) float64 {
	t.Helper()
	v, ok := value(out, series)
	if !ok {
		t.Fatalf("series %s missing from:\n%s", series, head(out, 60))
	}
	return v
}

// count is how many series of the metric the registry holds now.
func (e *env) count(metric string) int {
	e.t.Helper()
	n, err := testutil.GatherAndCount(e.reg, metric)
	if err != nil {
		e.t.Fatalf("gather: %v", err)
	}
	return n
}

func head(s string, lines int) string {
	parts := strings.SplitN(s, "\n", lines+1)
	if len(parts) > lines {
		parts = parts[:lines]
	}
	return strings.Join(parts, "\n")
}

func (e *env) requestsWithStatus(status int) int {
	return e.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == status })
}

// compareGolden checks what the registry holds now against
// testdata/<name>, rewriting the file first under -update. A mismatch
// shows a line diff.
func compareGolden(t *testing.T, name string, e *env) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, []byte(e.gather()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./collector -update to create it)", err)
	}
	if err := testutil.GatherAndCompare(e.reg, bytes.NewReader(want)); err != nil {
		t.Errorf("metrics differ from %s (check the change, then run go test ./collector -update):\n%v", golden, err)
	}
}

// docsConfig is a config file with one key and the project proj-docs
// (label docs); globals and project are extra YAML lines, already indented
// (two spaces under global:, four under the project). %s stands for the
// API URL, as newEnv expects.
func docsConfig(globals, project string) string {
	return "global:\n  api_url: %s\n" + globals +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n" + project
}

// refreshEvery runs n scrapes' worth of refreshes, step apart on the fake
// clock, without gathering: 12 000 series a step would dominate the run
// time and add nothing, since refreshes are driven by Refresh alone.
func (e *env) refreshEvery(step time.Duration, n int) {
	for range n {
		e.exp.Refresh(context.Background())
		e.exp.Wait()
		e.clock.Advance(step)
	}
}

// expectWithinBudget fails unless no answer was a 429 and no one-hour span
// saw more analytics requests than the key's 90 (100 less the reserve).
func (e *env) expectWithinBudget() {
	e.t.Helper()
	if n := e.requestsWithStatus(429); n != 0 {
		e.t.Fatalf("%d answers were 429", n)
	}
	if n := e.api.Server.MostInAnyHour(mockapi.EndpointGetJob); n > 90 {
		e.t.Fatalf("%d analytics requests in one hour; the budget is 100 less a reserve of 10", n)
	}
}

// restart closes the exporter and starts a new one from the same config
// and options (and so the same state file), as a process restart does.
func (e *env) restart() {
	e.t.Helper()
	e.exp.Close()
	exp, err := exporter.New(e.cfg, e.opts)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(exp.Close)
	e.reg = prometheus.NewPedanticRegistry()
	e.reg.MustRegister(exp)
	e.exp = exp
}
