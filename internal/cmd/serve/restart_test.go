package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestRestartsThroughTheBinary builds the exporter, runs it against the
// simulated API with a state file, and restarts it three times: every
// start must serve the saved page series on its first scrape (before any
// refresh could have run), with the last refresh time from before the
// restart, and the restarts must cost no request and no 429.
func TestRestartsThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}},
	})
	state := filepath.Join(t.TempDir(), "state.json")

	var last string
	var requestsAfterFirst int
	for i := range 4 {
		addr, stop := startBinary(t, bin, api.URL(), state)
		body := scrapeUntil(t, "http://"+addr+"/metrics", func(b string) bool {
			// The first run waits for its first refresh; later runs must
			// have the data on their very first answer.
			return i > 0 || strings.Contains(b, `mintlify_up{collector="pageviews",project="proj-docs"} 1`)
		})
		ts := seriesLine(body, `mintlify_last_refresh_success_timestamp_seconds{collector="pageviews",project="proj-docs"}`)
		if ts == "" || !strings.Contains(body, `mintlify_page_views_total{path=`) {
			stop()
			t.Fatalf("start %d: first scrape has no page series or no refresh time:\n%s", i, body)
		}
		if i == 0 {
			last = ts
			requestsAfterFirst = api.Server.CountRequests(nil)
		} else if ts != last {
			stop()
			t.Fatalf("start %d: %s, want %s from before the restart", i, ts, last)
		}
		stop()
	}
	if n := api.Server.CountRequests(nil) - requestsAfterFirst; n != 0 {
		t.Fatalf("three restarts cost %d requests, want 0", n)
	}
	if n := api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == 429 }); n != 0 {
		t.Fatalf("%d answers were 429", n)
	}
	b, err := os.ReadFile(state)
	if err != nil || strings.Contains(string(b), mainTestKey) {
		t.Fatalf("state file missing or holding the key: %v", err)
	}
}

// built is the exporter binary buildBinary built, once for the package's
// tests (a build takes seconds); stateGuard removes its folder after the
// run.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildBinary builds the exporter into a temporary folder, the first time
// it is called, and returns its path.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			built.err = fmt.Errorf("no go command on PATH to build the exporter: %w", err)
			return
		}
		if built.dir, err = os.MkdirTemp("", "mintlify-serve-bin-"); err != nil {
			built.err = err
			return
		}
		bin := filepath.Join(built.dir, "mintlify_exporter")
		build := exec.Command(goCmd, "build", "-o", bin, testkit.RepoRoot(tb))
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.bin
}

// startBinary runs the exporter on a free port and returns its address
// and a function that stops it with SIGTERM and waits for it.
func startBinary(t *testing.T, bin, apiURL, state string) (string, func()) {
	t.Helper()
	cmd := exec.Command(bin, "--web.listen-address=127.0.0.1:0", "--mintlify.project-id=proj-docs",
		"--mintlify.api-url="+apiURL, "--storage.path="+state, "--log.level=info")
	cmd.Env = append(os.Environ(), "MINTLIFY_API_KEY="+mainTestKey)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// exporter-toolkit logs the address it bound: read it back rather
	// than guess a free port.
	addr := listenAddress(t, stderr)
	if _, _, err := net.SplitHostPort(addr); err != nil {
		t.Fatalf("bad address %q", addr)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
	t.Cleanup(stop)
	return addr, stop
}

// scrapeUntil scrapes metricsURL until ok accepts the body: the event a
// test waits for (a refresh, a job poll) happens in the background. The
// two minutes only turn a hang into a failure.
func scrapeUntil(t *testing.T, metricsURL string, ok func(string) bool) string {
	t.Helper()
	ctx := testkit.HangGuard(t)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("scrape: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ok(string(b)) {
			return string(b)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no data by the test's deadline:\n%s", b)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func seriesLine(body, series string) string {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, series+" ") {
			return l
		}
	}
	return ""
}

// TestStateFIFORefusedByTheBinary: a FIFO at --storage.path never holds
// start-up (it used to block on opening it, deaf to SIGTERM): the binary
// exits at once with status 1 and a message naming the path, and the
// FIFO is left as it was.
func TestStateFIFORefusedByTheBinary(t *testing.T) {
	bin := buildBinary(t)
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	fifo := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(testkit.HangGuard(t), bin, "--web.listen-address=127.0.0.1:0", "--mintlify.project-id=proj-docs",
		"--mintlify.api-url="+api.URL(), "--storage.path="+fifo)
	cmd.Env = append(os.Environ(), "MINTLIFY_API_KEY="+mainTestKey)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), fifo) || !strings.Contains(stderr.String(), "a FIFO") {
		t.Errorf("the message does not name the FIFO:\n%s", stderr.String())
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}
