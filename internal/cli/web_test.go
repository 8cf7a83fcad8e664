package cli

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// TestWebServeStopsAtContextEnd: Web.Serve serves with the flags'
// timeouts, the header timeout capped at the read timeout, and returns
// ExitOK once the context ends, its server shut down.
func TestWebServeStopsAtContextEnd(t *testing.T) {
	app := kingpin.New("t", "")
	w := AddWebFlags(app, ":0", "4", "10m")
	if _, err := app.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: time.Hour, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { io.WriteString(rw, "ok") })}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- w.Serve(ctx, srv, l, time.Minute, quiet) }() // an idle server shuts down at once; no grace is waited out
	resp, err := http.Get("http://" + l.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit %d after the context ended; want %d", code, ExitOK)
		}
	case <-hangGuard(t).Done():
		t.Fatal("Serve did not return after the context ended")
	}
	if srv.ReadTimeout != w.ReadTimeout || srv.IdleTimeout != w.IdleTimeout || srv.ReadHeaderTimeout != w.ReadTimeout {
		t.Errorf("server timeouts read %s idle %s header %s; want %s, %s, %s", srv.ReadTimeout, srv.IdleTimeout, srv.ReadHeaderTimeout, w.ReadTimeout, w.IdleTimeout, w.ReadTimeout)
	}
}
