package cli

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// The limiter's own tests; the exporter's (internal/cmd/serve,
// conns_test.go) and the receiver's (internal/cmd/receiver, run_test.go)
// test it through their servers.

var quiet = slog.New(slog.DiscardHandler)

// hangGuard ends shortly before the test's deadline, so that a wait that
// never ends fails the test instead of hanging it (testkit.HangGuard,
// which this package cannot import: testkit imports it).
func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := t.Deadline(); ok {
		margin := min(time.Until(d)/10, 10*time.Second)
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-margin))
	}
	t.Cleanup(cancel)
	return ctx
}

// TestConnCap: the cap is the open-file limit less the process's own
// descriptors, at least 1, and never more than maxConnsBound.
func TestConnCap(t *testing.T) {
	for _, tc := range []struct {
		nofile uint64
		known  bool
		want   int
	}{
		{1024, true, 1024 - reservedDescriptors},
		{20000, true, 20000 - reservedDescriptors},
		{10, true, 1},
		{^uint64(0), true, maxConnsBound}, // RLIM_INFINITY
		{0, false, maxConnsBound},
	} {
		if got := connCap(tc.nofile, tc.known); got != tc.want {
			t.Errorf("connCap(%d, %v) = %d, want %d", tc.nofile, tc.known, got, tc.want)
		}
	}
}

// TestConnLimitClosesSpareConnections: at the limit, Accept admits a new
// connection by closing the one idle longest, before any that has not
// sent its request yet; with none of either it waits, and the first
// connection to turn idle is the one closed.
func TestConnLimitClosesSpareConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lim := newConnLimit(2, quiet)
	l := lim.wrap(ln)
	defer l.Close()
	var clients []net.Conn
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	// next dials and accepts one connection: the client's end and the
	// server's (which Accept may have had to make room for).
	next := func() (net.Conn, net.Conn) {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
		s, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return c, s
	}
	guard := hangGuard(t)
	closedByServer := func(c net.Conn) bool {
		if dl, ok := guard.Deadline(); ok {
			_ = c.SetReadDeadline(dl) // a connection left open fails the test, it does not hang it
		}
		_, err := c.Read(make([]byte, 1))
		return errors.Is(err, io.EOF)
	}
	spare := func(s net.Conn) bool {
		lim.mu.Lock()
		defer lim.mu.Unlock()
		_, ok := lim.spare[asLimitConn(s)]
		return ok
	}

	_, a := next() // new, no request yet: the older spare
	lim.track(a, http.StateNew)
	bc, b := next() // served a request, now idle
	lim.track(b, http.StateNew)
	lim.track(b, http.StateActive)
	lim.track(b, http.StateIdle)
	_, c := next() // at the limit: b, idle, goes before a, older but new
	if !closedByServer(bc) || spare(b) || !spare(a) {
		t.Fatalf("the idle connection was not the one closed (idle closed %v, new still spare %v)", !spare(b), spare(a))
	}
	lim.track(c, http.StateActive)
	_, d := next() // a, new, is the only spare left
	if spare(a) {
		t.Fatal("the connection without a request was not closed when no idle one was left")
	}
	lim.track(d, http.StateActive)

	// Every connection busy: Accept waits, until c turns idle and is
	// closed to admit the next.
	cc := clients[2]
	accepted := make(chan net.Conn, 1)
	go func() {
		e, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			clients = append(clients, e)
		}
		s, err := l.Accept()
		if err != nil {
			s = nil
		}
		accepted <- s
	}()
	lim.track(c, http.StateIdle)
	if s := <-accepted; s == nil {
		t.Fatal("Accept failed")
	}
	if !closedByServer(cc) {
		t.Fatal("the connection that turned idle was not closed to admit the waiting one")
	}
}
