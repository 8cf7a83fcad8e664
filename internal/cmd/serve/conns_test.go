package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// serveOnLocalhost runs serve (as main does) on a listener of its own with
// extra flags, and stops it when the test ends; it returns the address.
func serveOnLocalhost(t *testing.T, extra ...string) (string, *testkit.LockedBuffer) {
	t.Helper()
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	t.Setenv("MINTLIFY_API_KEY", mainTestKey)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The state directory is made before the cleanup below is registered,
	// so it is removed after the exporter has stopped writing to it
	// (cleanups run last-registered first).
	storage := filepath.Join(t.TempDir(), "state.json")
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs testkit.LockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, append([]string{
			"--mintlify.project-id=proj-docs", "--mintlify.api-url=" + api.URL(),
			"--storage.path=" + storage,
		}, extra...), &out, &logs, l)
	}()
	t.Cleanup(func() {
		cancel()
		if rc := <-done; rc != 0 {
			t.Errorf("exit %d\n%s", rc, logs.String())
		}
	})
	return l.Addr().String(), &logs
}

// waitFor returns once cond holds, or fails the test when the run's own
// deadline comes first: the wait is for an event, not a margin.
func waitFor(t *testing.T, guard context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-guard.Done():
			t.Fatalf("never happened: %s", what)
		case <-time.After(5 * time.Millisecond): // polling step, not a deadline
		}
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("counting descriptors: %v", err)
	}
	return len(ents)
}

// TestConnectionFloodIsBounded: a flood of idle keep-alive connections,
// far more than --web.max-connections, takes at most that many of the
// exporter's descriptors (the rest wait in the kernel's backlog), the
// limit is logged, and a scrape is served (TestScrapeGetsThroughIdleFlood
// shows it needs no connection of the flood to end).
func TestConnectionFloodIsBounded(t *testing.T) {
	const limit, flood = 8, 48
	addr, logs := serveOnLocalhost(t, "--web.max-connections=8", "--web.idle-timeout=1h")
	guard := testkit.HangGuard(t)
	before := openFDs(t)
	conns := make([]net.Conn, 0, flood)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		// One request each, then the connection idles (keep-alive).
		if _, err := io.WriteString(c, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, guard, "the connection limit logged", func() bool {
		return strings.Contains(logs.String(), "connection limit reached") && strings.Contains(logs.String(), "max_connections=8")
	})
	// The test's own flood connections, the exporter's side of at most
	// limit of them, and a few for the refresh (its client and the
	// simulated API): without the limit the exporter would hold flood.
	grown := openFDs(t) - before
	t.Logf("%d descriptors more during the flood (%d of them the test's)", grown, flood)
	if grown > flood+limit+16 {
		t.Errorf("%d descriptors more during a flood of %d connections with a limit of %d", grown, flood, limit)
	}

	scraped := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(guard, http.MethodGet, "http://"+addr+"/metrics", nil)
		// An hour: the scrape waits for the first refresh, however slow
		// the machine.
		req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "3600")
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Do(req)
		if err != nil {
			scraped <- err
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`mintlify_up{collector="pageviews",project="proj-docs"} 1`)) {
			scraped <- errors.New(resp.Status + "\n" + string(body))
			return
		}
		scraped <- nil
	}()
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	if err := <-scraped; err != nil {
		t.Fatalf("scrape after the flood: %v\n%s", err, logs.String())
	}
}

// TestScrapeGetsThroughIdleFlood: with --web.max-connections taken by
// idle keep-alive connections (a flood that holds them open), a scrape on
// a new connection is answered while the flood stays: one idle connection
// is closed to admit it. Before, the scrape waited in the backlog until
// the flood ended.
func TestScrapeGetsThroughIdleFlood(t *testing.T) {
	const limit = 4
	addr, logs := serveOnLocalhost(t, "--web.max-connections=4", "--web.idle-timeout=1h")
	guard := testkit.HangGuard(t)
	closed := testkit.IdleFlood(t, guard, addr, limit)

	req, _ := http.NewRequestWithContext(guard, http.MethodGet, "http://"+addr+"/metrics", nil)
	// An hour: the scrape waits for the first refresh, however slow the
	// machine; the verdict is the answer, not its time.
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "3600")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("scrape during the flood: %v\n%s", err, logs.String())
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`mintlify_up{collector="pageviews",project="proj-docs"} 1`)) {
		t.Fatalf("scrape during the flood: %s\n%s", resp.Status, body)
	}
	select {
	case i := <-closed:
		t.Logf("flood connection %d was closed to admit the scrape", i)
	case <-guard.Done():
		t.Fatal("the scrape was answered, yet no idle connection of the flood was closed")
	}
	if !strings.Contains(logs.String(), "connection limit reached") {
		t.Errorf("the limit was not logged:\n%s", logs.String())
	}
}

// TestIdleConnectionClosed: a keep-alive connection with no new request
// is closed by the exporter after --web.idle-timeout.
func TestIdleConnectionClosed(t *testing.T) {
	addr, _ := serveOnLocalhost(t, "--web.idle-timeout=50ms")
	guard := testkit.HangGuard(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stop := context.AfterFunc(guard, func() { c.Close() }) // a hang fails, it does not hang
	defer stop()
	if _, err := io.WriteString(c, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("%s, close %v: want a kept-alive 200", resp.Status, resp.Close)
	}
	// The event: the exporter closes the connection (EOF), with no
	// request sent.
	if n, err := br.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("read on the idle connection: %d bytes, %v; want EOF from the exporter closing it", n, err)
	}
}

// TestWebLimitFlagsChecked: --web.* values that would stop the server
// serving, or that make no sense, are refused at start with a message
// naming the flag and its bounds.
func TestWebLimitFlagsChecked(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"--web.max-connections=0", "--web.max-connections must be at least 1, got 0"},
		{"--web.max-requests=-1", "--web.max-requests must be between 0 (no limit) and 10000, got -1"},
		{"--web.max-requests=10001", "--web.max-requests must be between 0 (no limit) and 10000, got 10001"},
		{"--web.read-timeout=0s", "--web.read-timeout must be more than 0s and at most 10m0s, got 0s"},
		{"--web.read-timeout=876000h", "--web.read-timeout must be more than 0s and at most 10m0s, got 876000h0m0s"},
		{"--web.idle-timeout=-1s", "--web.idle-timeout must be more than 0s and at most 24h0m0s, got -1s"},
		{"--web.idle-timeout=25h", "--web.idle-timeout must be more than 0s and at most 24h0m0s, got 25h0m0s"},
		{"--web.default-scrape-timeout=-1s", "--web.default-scrape-timeout must be at least 1s and at most 1h0m0s, got -1s"},
		{"--web.default-scrape-timeout=1ns", "--web.default-scrape-timeout must be at least 1s and at most 1h0m0s, got 1ns"},
		{"--web.default-scrape-timeout=2h", "--web.default-scrape-timeout must be at least 1s and at most 1h0m0s, got 2h0m0s"},
		{"--web.scrape-timeout-offset=-10s", "--web.scrape-timeout-offset must be between 0s and 1h0m0s, got -10s"},
		{"--web.scrape-timeout-offset=61m", "--web.scrape-timeout-offset must be between 0s and 1h0m0s, got 1h1m0s"},
		{"--web.telemetry-path=metrics", `--web.telemetry-path must be an absolute URL path such as /metrics (no spaces, {}, ?, # or //), got "metrics"`},
		{"--web.telemetry-path=GET /metrics", `--web.telemetry-path must be an absolute URL path such as /metrics (no spaces, {}, ?, # or //), got "GET /metrics"`},
		{"--web.telemetry-path=/{name}", `--web.telemetry-path must be an absolute URL path such as /metrics (no spaces, {}, ?, # or //), got "/{name}"`},
		{"--web.telemetry-path=/", `--web.telemetry-path must not be /, the landing page's, got "/"`},
		{"--web.telemetry-path=/-/healthy", `--web.telemetry-path must not be under /-/, the exporter's own endpoints, got "/-/healthy"`},
		{"--web.telemetry-path=/debug/pprof", `--web.telemetry-path must not be under /debug/pprof/, the exporter's own endpoints, got "/debug/pprof"`},
	} {
		var out, errb bytes.Buffer
		rc := serve(context.Background(), []string{tc.arg, "--mintlify.project-id=p"}, &out, &errb, nil)
		if rc != 2 || errb.String() != "mintlify_exporter: "+tc.want+"\n" {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", tc.arg, rc, errb.String(), tc.want)
		}
		// The exporter other commands' tests build (New) refuses it too.
		if _, err := New(context.Background(), []string{tc.arg, "--mintlify.project-id=p"}, Options{}); err == nil || err.Error() != tc.want {
			t.Errorf("New with %s: %v; want %q", tc.arg, err, tc.want)
		}
	}
}

// TestWebFlagsAtTheirBoundsAccepted: each bound of the --web.* flags is
// itself a value the exporter starts with.
func TestWebFlagsAtTheirBoundsAccepted(t *testing.T) {
	f := flags{web: &cli.Web{MaxConns: 1, ReadTimeout: cli.MaxReadTimeout, IdleTimeout: cli.MaxIdleTimeout}, maxRequests: maxMaxRequests,
		defaultTimeout: maxScrapeTimeout, timeoutOffset: maxScrapeTimeout, metricsPath: "/m"}
	if err := checkWebFlags(&f); err != nil {
		t.Errorf("the bounds themselves: %v", err)
	}
	f = flags{web: &cli.Web{MaxConns: 1, ReadTimeout: time.Nanosecond, IdleTimeout: time.Nanosecond}, defaultTimeout: minDefaultScrapeTimeout, metricsPath: "/x/metrics.txt"}
	if err := checkWebFlags(&f); err != nil {
		t.Errorf("the lower bounds: %v", err)
	}
}

// TestMaxConnectionsCappedToDescriptorLimit: a --web.max-connections far
// above the open-file limit is not refused but capped to it, less what
// the exporter keeps for itself, with one WARN naming the flag; the
// exporter then serves.
func TestMaxConnectionsCappedToDescriptorLimit(t *testing.T) {
	addr, logs := serveOnLocalhost(t, "--web.max-connections=99999999999")
	guard := testkit.HangGuard(t)
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatalf("the open-file limit cannot be read here: %v", err)
	}
	// The cap, as cli.ServeLimited states it: the limit less 64, at most 1<<20.
	want := "max_connections=" + strconv.FormatUint(min(uint64(rl.Cur)-64, 1<<20), 10)
	waitFor(t, guard, "the exporter serving", func() bool {
		resp, err := http.Get("http://" + addr + "/-/healthy")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	var warns []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "--web.max-connections") {
			warns = append(warns, line)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "level=WARN") || !strings.Contains(warns[0], want) ||
		!strings.Contains(warns[0], "requested=99999999999") {
		t.Errorf("want one WARN naming --web.max-connections, requested=99999999999 and %s; got %q", want, warns)
	}
}

// TestSlowRequestDisconnected: a client that does not finish its request
// within --web.read-timeout is disconnected, with no answer.
func TestSlowRequestDisconnected(t *testing.T) {
	addr, _ := serveOnLocalhost(t, "--web.read-timeout=50ms")
	guard := testkit.HangGuard(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stop := context.AfterFunc(guard, func() { c.Close() })
	defer stop()
	if _, err := io.WriteString(c, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n"); err != nil { // no blank line
		t.Fatal(err)
	}
	if b, err := io.ReadAll(c); len(b) != 0 || err != nil {
		t.Fatalf("read %q, %v; want the connection closed with no answer", b, err)
	}
}
