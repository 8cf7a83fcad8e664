package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestServeWithBasicAuthAndShutdown starts the exporter the way main does,
// with an exporter-toolkit web config that requires basic auth, checks
// that /metrics refuses anonymous scrapes and serves authenticated ones,
// and that cancelling the context (SIGTERM) shuts it down cleanly.
func TestServeWithBasicAuthAndShutdown(t *testing.T) {
	api, err := mockapi.Start(mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	t.Setenv("MINTLIFY_API_KEY", mainTestKey)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webCfg := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(webCfg, []byte("basic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	ctx, cancel := context.WithCancel(context.Background())
	var out, logs bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{
			"--web.listen-address=" + addr, "--web.config.file=" + webCfg,
			"--mintlify.project-id=proj-docs", "--mintlify.api-url=" + api.URL(),
			"--storage.path=" + filepath.Join(t.TempDir(), "state.json"),
		}, &out, &logs)
	}()
	url := "http://" + addr + "/metrics"
	var resp *http.Response
	for range 100 { // wait for the listener, 5 s at most
		if resp, err = http.Get(url); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		cancel()
		t.Fatalf("exporter did not start: %v\n%s", err, logs.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous scrape: %s, want 401", resp.Status)
	}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.SetBasicAuth("prometheus", "s3cret")
	resp, err = http.DefaultClient.Do(req)
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
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("exit %d after shutdown\n%s", rc, logs.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no shutdown 10 s after the context ended")
	}
	http.DefaultClient.CloseIdleConnections()
	if strings.Contains(logs.String(), mainTestKey) {
		t.Fatal("the key is in the log")
	}
}
