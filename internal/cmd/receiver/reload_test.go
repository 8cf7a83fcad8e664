package receiver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// signalledBuffer is a log that tells each write on a channel, for a
// test to wait on a log line rather than on time.
type signalledBuffer struct {
	testkit.LockedBuffer
	wrote chan struct{}
}

func (b *signalledBuffer) Write(p []byte) (int, error) {
	n, err := b.LockedBuffer.Write(p)
	select {
	case b.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// waitLog waits until the log holds want n times.
func (b *signalledBuffer) waitLog(t *testing.T, want string, n int) {
	t.Helper()
	guard := testkit.HangGuard(t)
	for strings.Count(b.String(), want) < n {
		select {
		case <-b.wrote:
		case <-guard.Done():
			t.Fatalf("no %q (%d) in the log:\n%s", want, n, b.String())
		}
	}
}

func feedback(group string) notification {
	return notification{status: "firing", groupKey: `{}/{alertname="MintlifyFeedbackBacklog"}:{g="` + group + `"}`,
		labels: map[string]string{"alertname": "MintlifyFeedbackBacklog", "project_id": testProject}, fp: "0123456789abcdef"}
}

// TestSIGHUPReloadsRoutes: SIGHUP reloads the routes file, as the
// exporter reloads its configuration, and the receiver keeps serving; a
// file that does not load, or that would switch acting, is refused with
// an error naming the file, and the running routes stay.
func TestSIGHUPReloadsRoutes(t *testing.T) {
	h := newHarness(t, false, testRoutes)
	h.stop()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &signalledBuffer{wrote: make(chan struct{}, 1)}
	done := make(chan int, 1)
	go func() { done <- run(ctx, h.args, io.Discard, logs, l, Options{Now: h.clock.Now}) }()
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		return string(b)
	}
	post := func(n notification) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url+WebhookPath, bytes.NewReader(n.body()))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("post: %d", resp.StatusCode)
		}
	}
	// The server answers only once the SIGHUP handler is in place.
	get("/-/healthy")
	post(feedback("one"))
	routes := filepath.Join(h.dir, "routes.yml")
	write(t, routes, strings.Replace(testRoutes, "name: feedback", "name: feedback-renamed", 1))
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	logs.waitLog(t, "Routes file reloaded", 1)
	post(feedback("two"))
	mustContain(t, get("/metrics"),
		`mintlify_receiver_actions_total{kind="automation",outcome="dry_run",route="feedback"} 1`,
		`mintlify_receiver_actions_total{kind="automation",outcome="dry_run",route="feedback-renamed"} 1`,
		"mintlify_receiver_config_last_reload_successful 1")

	for i, bad := range []string{"routes: [", "act: true\n" + testRoutes} {
		write(t, routes, bad)
		if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		logs.waitLog(t, "keeping the running routes", i+1)
		post(feedback("three" + bad))
		m := get("/metrics")
		mustContain(t, m, "mintlify_receiver_config_last_reload_successful 0",
			`mintlify_receiver_actions_total{kind="automation",outcome="dry_run",route="feedback-renamed"} `+string(rune('2'+i)),
			`mintlify_receiver_actions_total{kind="automation",outcome="dry_run",route="feedback"} 1`)
	}
	mustContain(t, logs.String(), "file="+routes, "restart the receiver to change acting")
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d:\n%s", code, logs.String())
	}
}
