package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

const mainTestKey = "mint_maintestkey0987654321"

const fileConfig = `
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

// testServer runs the exporter's HTTP handler against a simulated API.
func testServer(t *testing.T, mock func(*mockapi.Options)) (*httptest.Server, *server, *mockapi.Running, string, *testkit.LockedBuffer) {
	t.Helper()
	return testServerClock(t, mock, nil)
}

// testServerClock is testServer with a clock shared by the simulated API
// and the exporter (nil: the real one).
func testServerClock(t *testing.T, mock func(*mockapi.Options), clock *manualclock.Clock, extraFlags ...string) (*httptest.Server, *server, *mockapi.Running, string, *testkit.LockedBuffer) {
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
	h := Options{RetryBase: time.Millisecond}
	if clock != nil {
		h.Clock = clock
	}
	ts, s, cfgPath, logs := startServer(t, api.URL(), fileConfig, h, extraFlags...)
	return ts, s, api, cfgPath, logs
}

// startServer runs the exporter's handler with the test options o on the config text
// cfg (one %s: the API URL) written to a file, its state file in a
// temporary directory; MAIN_TEST_KEY holds the key.
func startServer(t *testing.T, apiURL, cfg string, o Options, extraFlags ...string) (*httptest.Server, *server, string, *testkit.LockedBuffer) {
	t.Helper()
	t.Setenv("MAIN_TEST_KEY", mainTestKey)
	cfgPath := filepath.Join(t.TempDir(), "mintlify.yml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(cfg, apiURL)), 0o644); err != nil {
		t.Fatal(err)
	}
	var f flags
	args := []string{"--config.file", cfgPath, "--storage.path", filepath.Join(t.TempDir(), "state.json")}
	if _, err := newApp(&f).Parse(append(args, extraFlags...)); err != nil {
		t.Fatal(err)
	}
	logs := &testkit.LockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	src, err := newConfigSource(context.Background(), &f, logger, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := src.load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(&f, c, src, logger, o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(func() {
		ts.Close()
		s.close()
		src.close()
	})
	return ts, s, cfgPath, logs
}

func get(t *testing.T, url string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// scrapeSettled is /metrics once the refreshes a scrape starts have
// finished, however slow the machine: it scrapes once (which starts the
// due refreshes but waits for them only until its deadline), waits for
// the exporter to go idle, and returns a second scrape. The second one
// starts nothing new: nothing is due again until the clock passes the
// refresh interval.
func scrapeSettled(t *testing.T, ts *httptest.Server, s *server, hdr map[string]string) string {
	t.Helper()
	if code, body := get(t, ts.URL+"/metrics", hdr); code != 200 {
		t.Fatalf("scrape answered %d: %s", code, body)
	}
	s.exporter.Wait()
	code, body := get(t, ts.URL+"/metrics", hdr)
	if code != 200 {
		t.Fatalf("scrape answered %d: %s", code, body)
	}
	return body
}

func TestMetricsEndpoint(t *testing.T) {
	ts, s, _, _, logs := testServer(t, nil)
	body := scrapeSettled(t, ts, s, nil)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("exposition does not parse: %v", err)
	}
	for _, name := range []string{"mintlify_page_views", "mintlify_site_page_views", "mintlify_up", "mintlify_exporter_build_info",
		"mintlify_exporter_config_last_reload_successful", "mintlify_api_requests_total", "go_goroutines", "process_cpu_seconds_total"} {
		if mfs[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	if !strings.Contains(body, `mintlify_up{collector="pageviews",project="docs"} 1`) {
		t.Error("pageviews not up after the first scrape")
	}
	for _, s := range []string{body, logs.String()} {
		if strings.Contains(s, mainTestKey) {
			t.Fatal("the API key is in the output or the logs")
		}
	}
	checkPromtool(t, body)
}

// checkPromtool runs `promtool check metrics` on an exposition. Without
// promtool it fails the test in CI and elsewhere records the check as
// skipped (see internal/toolcheck); call it after the other assertions.
func checkPromtool(t *testing.T, body string) {
	t.Helper()
	path, ok := toolcheck.Find(t, "promtool", "apt-get install prometheus", "promtool check metrics of /metrics")
	if !ok {
		return
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestLandingHealthAndReload(t *testing.T) {
	ts, srv, _, cfgPath, _ := testServer(t, nil)
	if code, body := get(t, ts.URL+"/", nil); code != 200 || !strings.Contains(body, "mintlify_exporter") || !strings.Contains(body, "/metrics") {
		t.Fatalf("landing page: %d %s", code, body)
	}
	if code, body := get(t, ts.URL+"/-/healthy", nil); code != 200 || !strings.Contains(body, "Healthy") {
		t.Fatalf("health: %d %s", code, body)
	}
	if code, _ := get(t, ts.URL+"/-/reload", nil); code != http.StatusMethodNotAllowed {
		t.Fatalf("GET /-/reload: %d", code)
	}
	// A broken file: the reload fails, says why, and the old config serves on.
	if err := os.WriteFile(cfgPath, []byte("global:\n  bogus_field: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(ts.URL+"/-/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(msg), "bogus_field") {
		t.Fatalf("bad reload: %d %s", resp.StatusCode, msg)
	}
	body := scrapeSettled(t, ts, srv, nil)
	if !strings.Contains(body, "mintlify_exporter_config_last_reload_successful 0") {
		t.Error("failed reload not reported")
	}
	if !strings.Contains(body, `mintlify_up{collector="pageviews",project="docs"} 1`) {
		t.Error("the running config stopped working after a bad reload")
	}
}

// TestScrapeHonoursPrometheusTimeout: the deadline is the subject here.
// The upstream hangs for an hour; the scrape must answer once its own
// deadline (1 s less the 0.5 s offset) has passed, with the refresh still
// running. Both checks hold however slow the machine is: load only makes
// the scrape later than 0.5 s, and a scrape that waited for the refresh
// would find an upstream request ended (the client's 30 s request timeout
// cuts the hour-long answer, and the mock records it as 499).
func TestScrapeHonoursPrometheusTimeout(t *testing.T) {
	ts, _, api, _, _ := testServer(t, nil)
	api.Server.SetFault(mockapi.Fault{Latency: time.Hour})
	start := time.Now()
	code, body := get(t, ts.URL+"/metrics", map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "1"})
	elapsed := time.Since(start)
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	if n := api.Server.CountRequests(nil); n != 0 {
		t.Fatalf("%d upstream requests ended before the scrape answered: it waited for the refresh", n)
	}
	if elapsed < 500*time.Millisecond {
		t.Fatalf("scrape answered after %v, before its deadline of 1 s less the 0.5 s offset", elapsed)
	}
	if !strings.Contains(body, `mintlify_up{collector="pageviews",project="docs"} 0`) {
		t.Error("with no data yet, up must be 0")
	}
}

func TestRunExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := run([]string{"--no-such-flag"}, &out, &errb); rc != 2 || !strings.Contains(errb.String(), "no-such-flag") {
		t.Fatalf("bad flag: rc %d, %s", rc, errb.String())
	}
	errb.Reset()
	t.Setenv("MINTLIFY_PROJECT_ID", "")
	if rc := run([]string{"--config.check"}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "mintlify.project-id") {
		t.Fatalf("no project: rc %d, %s", rc, errb.String())
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	_ = os.WriteFile(bad, []byte("keys:\n  - name: a\n    api_key_env: X\nprojects:\n  - id: p\n    include_paths: ['(']\n"), 0o644)
	errb.Reset()
	if rc := run([]string{"--config.file", bad, "--config.check"}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "include_paths") {
		t.Fatalf("bad config: rc %d, %s", rc, errb.String())
	}
	good := filepath.Join(dir, "good.yml")
	_ = os.WriteFile(good, []byte("keys:\n  - name: a\n    api_key_env: GOOD_KEY\nprojects:\n  - id: p\n"), 0o644)
	t.Setenv("GOOD_KEY", "mint_goodkey1")
	errb.Reset()
	if rc := run([]string{"--config.file", good, "--config.check"}, &out, &errb); rc != 0 {
		t.Fatalf("good config: rc %d, %s", rc, errb.String())
	}
	t.Setenv("GOOD_KEY", "mint_dsc_assistantkey")
	errb.Reset()
	if rc := run([]string{"--config.file", good, "--config.check"}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "assistant") || strings.Contains(errb.String(), "mint_dsc_assistantkey") {
		t.Fatalf("assistant key: rc %d, %s", rc, errb.String())
	}
}

func TestDemoLandingSaysDemo(t *testing.T) {
	var f flags
	if _, err := newApp(&f).Parse([]string{"--demo"}); err != nil {
		t.Fatal(err)
	}
	src, err := newConfigSource(context.Background(), &f, quiet, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	cfg, err := src.load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(&f, cfg, src, quiet, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	ts := httptest.NewServer(s.handler())
	defer ts.Close()
	if _, body := get(t, ts.URL+"/", nil); !strings.Contains(body, "DEMO") {
		t.Fatal("the landing page does not say the data is a demo")
	}
	resp, err := http.Post(ts.URL+"/-/demo/fail-job?project=demo-blog&job=job_demo_new", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("fail-job: %v %v", err, resp)
	}
	resp.Body.Close()
	body := scrapeSettled(t, ts, s, nil)
	for _, want := range []string{`mintlify_agent_job_status{job_id="job_demo_new",project="blog",status="failed"} 1`, `mintlify_up{collector="pageviews",project="docs"} 1`, `mintlify_up{collector="agent_jobs",project="blog"} 1`, `mintlify_page_views{path=`, `mintlify_page_views_total{path=`, `mintlify_site_page_views_total{project="blog",traffic="human"}`} {
		if !strings.Contains(body, want) {
			t.Errorf("demo /metrics lacks %s", want)
		}
	}
}

func TestCollectorFlags(t *testing.T) {
	ts, s, _, _, _ := testServerClock(t, nil, nil, "--collector.visitors", "--no-collector.pageviews", "--collector.assistant")
	body := scrapeSettled(t, ts, s, nil)
	for _, want := range []string{`mintlify_up{collector="visitors",project="docs"} 1`, `mintlify_up{collector="assistant",project="docs"} 1`, "mintlify_page_visitors{"} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s", want)
		}
	}
	if strings.Contains(body, "mintlify_page_views{") || strings.Contains(body, "mintlify_page_views_total{") || strings.Contains(body, `collector="pageviews"`) {
		t.Error("pageviews ran although --no-collector.pageviews was given")
	}

	var f flags
	if _, err := newApp(&f).Parse([]string{"--no-collector.pageviews", "--mintlify.project-id=p"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MINTLIFY_API_KEY", "mint_x1")
	src, _ := newConfigSource(context.Background(), &f, quiet, nil)
	cfg, err := src.load()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newServer(&f, cfg, src, quiet, Options{}); err == nil || !strings.Contains(err.Error(), "--collector.") {
		t.Fatalf("all collectors off: err = %v", err)
	}
}

// TestFlagsDocumented checks that docs/configuration.md has a row for
// every flag of the exporter, and no row for a flag that does not exist.
func TestFlagsDocumented(t *testing.T) {
	testkit.CheckFlagsDocumented(t, "configuration.md", newApp(&flags{}), "the exporter")
}
