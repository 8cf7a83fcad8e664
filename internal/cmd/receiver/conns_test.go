package receiver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestWebhookGetsThroughIdleFlood: with --web.max-connections taken by
// idle keep-alive connections, a notification on a new connection is
// answered while the flood stays: the exporter's limit (cli.ServeLimited)
// closes the connection idle longest to admit it. Behind a plain
// LimitListener, as before, the notification waited in the kernel's
// backlog until the flood went, and Alertmanager gave up.
func TestWebhookGetsThroughIdleFlood(t *testing.T) {
	const limit = 4
	h := newHarness(t, false, testRoutes)
	h.stop()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr testkit.LockedBuffer
	go func() {
		done <- run(ctx, append(h.args, "--web.max-connections=4", "--web.idle-timeout=1h"), io.Discard, &stderr, l, Options{Now: h.clock.Now})
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("exit %d: %s", code, stderr.String())
		}
	}()
	guard := testkit.HangGuard(t)
	closed := testkit.IdleFlood(t, guard, addr, limit)
	req, _ := http.NewRequestWithContext(guard, http.MethodPost, "http://"+addr+WebhookPath, bytes.NewReader(gap("billing").body()))
	req.Header.Set("Authorization", "Bearer "+testToken)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("notification during the flood: %v\n%s", err, stderr.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("notification during the flood: %s", resp.Status)
	}
	select {
	case i := <-closed:
		t.Logf("flood connection %d was closed to admit the notification", i)
	case <-guard.Done():
		t.Fatal("the notification was answered, yet no idle connection of the flood was closed")
	}
	if !strings.Contains(stderr.String(), "connection limit reached") {
		t.Errorf("the limit was not logged:\n%s", stderr.String())
	}
}

// TestWebLimitFlagsChecked: the receiver refuses the --web.* values the
// exporter refuses, with the same words.
func TestWebLimitFlagsChecked(t *testing.T) {
	h := newHarness(t, false, testRoutes)
	for _, tc := range []struct{ arg, want string }{
		{"--web.max-connections=0", "--web.max-connections must be at least 1, got 0"},
		{"--web.read-timeout=11m", "--web.read-timeout must be more than 0s and at most 10m0s, got 11m0s"},
		{"--web.idle-timeout=25h", "--web.idle-timeout must be more than 0s and at most 24h0m0s, got 25h0m0s"},
	} {
		var errb bytes.Buffer
		if code := run(context.Background(), append(h.args, tc.arg), io.Discard, &errb, nil, Options{}); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", tc.arg, code, errb.String(), tc.want)
		}
	}
}
