package engine

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/leakcheck"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

const testKey = "mint_enginetestkey42"

// TestMain fails the package when a test leaves a goroutine behind: every
// engine a test starts must end with Close (its refreshes, the job poller,
// the simulated API's connections).
func TestMain(m *testing.M) {
	leakcheck.VerifyTestMain(m)
}

// testEngine is an engine of yamlCfg (%s for the API URL) against the
// simulated API mo, with the options o (a manual clock, a discarding
// logger, the test key and short retries unless o says otherwise).
type testEngine struct {
	*Engine
	api   *mockapi.Running
	clock *manualclock.Clock
}

func newTestEngine(t *testing.T, yamlCfg string, mo mockapi.Options, o Options) *testEngine {
	t.Helper()
	clock := manualclock.New(epoch)
	mo.Clock = clock
	mo.Keys = []mockapi.KeySpec{{Key: testKey, Org: "acme", Scope: mockapi.ReadOnly}}
	api := testkit.StartAPI(t, mo)
	cfg, err := config.Parse([]byte(fmt.Sprintf(yamlCfg, api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	if o.Clock == nil {
		o.Clock = clock
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return testKey }
	}
	o.RetryBase = time.Millisecond
	if o.Collectors == nil {
		o.Collectors = collector.All
	}
	e, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return &testEngine{Engine: e, api: api, clock: clock}
}

// refresh runs what is due and waits until it is done.
func (e *testEngine) refresh() {
	e.Refresh(context.Background())
	e.Wait()
}
