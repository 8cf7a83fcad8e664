package backfill

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve/servetest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// The exporter some tests run beside the backfill: one project,
// proj-docs, under the key in MAIN_TEST_KEY.
const (
	mainTestKey    = "mint_maintestkey0987654321"
	exporterConfig = `
global:
  api_url: %s
keys:
  - name: acme
    api_key_env: MAIN_TEST_KEY
projects:
  - id: proj-docs
    name: docs
    windows: [24h, 7d]
`
)

// testServer runs the exporter against a simulated API of its own and
// returns it, its state file and the API.
func testServer(t *testing.T, mock func(*mockapi.Options)) (*servetest.Exporter, string, *mockapi.Running) {
	t.Helper()
	return testServerClock(t, mock, nil)
}

// testServerClock is testServer with a clock shared by the simulated API
// and the exporter (nil: the real one), its state file in a temporary
// directory.
func testServerClock(t *testing.T, mock func(*mockapi.Options), clock *manualclock.Clock, extraFlags ...string) (*servetest.Exporter, string, *mockapi.Running) {
	t.Helper()
	mo := mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 30, OtherTraffic: true}},
	}
	if clock != nil {
		mo.Clock = clock
	}
	if mock != nil {
		mock(&mo)
	}
	api := testkit.StartAPI(t, mo)
	t.Setenv("MAIN_TEST_KEY", mainTestKey)
	cfgPath := filepath.Join(t.TempDir(), "mintlify.yml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(exporterConfig, api.URL())), 0o644); err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(t.TempDir(), "state.json")
	args := append([]string{"--config.file", cfgPath, "--storage.path", statePath}, extraFlags...)
	o := serve.Options{RetryBase: time.Millisecond}
	if clock != nil {
		o.Clock = clock
	}
	return servetest.Start(t, args, o), statePath, api
}
