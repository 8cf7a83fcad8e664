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
	"strings"
	"testing"
	"time"

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
	ctx, cancel := context.WithCancel(context.Background())
	var out, logs testkit.LockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, append([]string{
			"--mintlify.project-id=proj-docs", "--mintlify.api-url=" + api.URL(),
			"--storage.path=" + filepath.Join(t.TempDir(), "state.json"),
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
// limit is logged, and a scrape waiting behind the flood is served as
// soon as the flood's connections close.
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

// TestWebLimitFlagsChecked: limits that would stop the server serving are
// refused at start, naming the flag.
func TestWebLimitFlagsChecked(t *testing.T) {
	for _, arg := range []string{"--web.max-connections=0", "--web.read-timeout=0s", "--web.idle-timeout=-1s"} {
		var out, errb bytes.Buffer
		rc := serve(context.Background(), []string{arg, "--mintlify.project-id=p"}, &out, &errb, nil)
		name, _, _ := strings.Cut(arg, "=")
		if rc != 2 || !strings.Contains(errb.String(), name) {
			t.Errorf("%s: exit %d, %s", arg, rc, errb.String())
		}
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
