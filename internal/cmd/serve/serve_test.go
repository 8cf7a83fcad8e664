package serve

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/crypto/bcrypt"

	"github.com/mintlify-exporter/mintlify_exporter/internal/leakcheck"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestServeWithBasicAuthAndShutdown starts the exporter the way main does,
// with an exporter-toolkit web config that requires basic auth, checks
// that /metrics refuses anonymous scrapes and serves authenticated ones,
// and that cancelling the context (SIGTERM) shuts it down cleanly.
func TestServeWithBasicAuthAndShutdown(t *testing.T) {
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	t.Setenv("MINTLIFY_API_KEY", mainTestKey)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webCfg := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(webCfg, []byte("basic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The listener is open before serve starts and is handed over, so no
	// other process can take the port and no retry loop is needed: the
	// first connection waits in the backlog until serve accepts it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/metrics"

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// serve's goroutines write the log while the test reads it.
	var out, logs testkit.LockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{
			"--web.config.file=" + webCfg,
			"--mintlify.project-id=proj-docs", "--mintlify.api-url=" + api.URL(),
			"--storage.path=" + filepath.Join(t.TempDir(), "state.json"),
		}, &out, &logs, l)
	}()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("exporter did not answer: %v\n%s", err, logs.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous scrape: %s, want 401", resp.Status)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.SetBasicAuth("prometheus", "s3cret")
	// A scrape timeout of an hour makes the handler wait until the first
	// refresh has finished (the event), however slow the machine, instead
	// of answering with up 0 at the default 10 s deadline.
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "3600")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(body.String(), `mintlify_up{collector="pageviews",project="proj-docs"} 1`) {
		t.Fatalf("authenticated scrape: %s\n%s", resp.Status, body.String())
	}
	cancel()
	// No deadline of our own: go test's -timeout ends a hung shutdown and
	// prints every goroutine, which says more than a timer here would.
	if rc := <-done; rc != 0 {
		t.Fatalf("exit %d after shutdown\n%s", rc, logs.String())
	}
	if !strings.Contains(logs.String(), "Shutting down") {
		t.Errorf("no shutdown logged:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), mainTestKey) {
		t.Fatal("the key is in the log")
	}
}

// TestServeErrorPathEndsItsGoroutines: when the HTTP server fails (here:
// the listener handed over is already closed) serve returns 1, and the
// goroutines it started (the SIGHUP loop, the first refresh) have ended
// by then although the context never ends.
func TestServeErrorPathEndsItsGoroutines(t *testing.T) {
	api, err := mockapi.Start(mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MINTLIFY_API_KEY", mainTestKey)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	before := goleak.IgnoreCurrent()
	var out, logs testkit.LockedBuffer
	rc := serve(context.Background(), []string{
		"--mintlify.project-id=proj-docs", "--mintlify.api-url=" + api.URL(),
		"--storage.path=" + filepath.Join(t.TempDir(), "state.json"),
	}, &out, &logs, l)
	if rc != 1 || !strings.Contains(logs.String(), "HTTP server failed") {
		t.Fatalf("exit %d with a closed listener, want 1 and the failure logged\n%s", rc, logs.String())
	}
	_ = api.Close()
	leakcheck.VerifyNone(t, before)
}
