package cli

// Listening, shared by the exporter and the receiver: the sockets
// --web.listen-address and --web.systemd-socket name, as exporter-toolkit
// opens them, behind one limit on the connections open at once
// (--web.max-connections), so that a flood of idle connections cannot
// take every file descriptor or grow memory without bound.

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreos/go-systemd/v22/activation"
	"github.com/mdlayher/vsock"
	"github.com/prometheus/exporter-toolkit/web"
)

// MaxConnectionsHelp is --web.max-connections' help, the same in every
// command that serves.
const MaxConnectionsHelp = "Maximum number of connections open at once, across every listen address, capped to the open-file limit less 64. At the limit, the connection idle longest is closed to admit a new one; while every one serves a request, new ones wait in the kernel's backlog."

// CheckMaxConnections refuses a --web.max-connections below 1; one above
// the descriptor limit is not refused but capped (ServeLimited).
func CheckMaxConnections(n int) error {
	if n < 1 {
		return fmt.Errorf("--web.max-connections must be at least 1, got %d", n)
	}
	return nil
}

// The bounds of --web.read-timeout and --web.idle-timeout, the exporter's
// and the receiver's.
const (
	MaxReadTimeout = 10 * time.Minute // a request is a few hundred bytes
	MaxIdleTimeout = 24 * time.Hour
)

// CheckWebTimeouts refuses a --web.read-timeout or --web.idle-timeout out
// of its bounds.
func CheckWebTimeouts(read, idle time.Duration) error {
	switch {
	case read <= 0 || read > MaxReadTimeout:
		return fmt.Errorf("--web.read-timeout must be more than 0s and at most %s, got %s", MaxReadTimeout, read)
	case idle <= 0 || idle > MaxIdleTimeout:
		return fmt.Errorf("--web.idle-timeout must be more than 0s and at most %s, got %s", MaxIdleTimeout, idle)
	}
	return nil
}

// ServeLimited serves srv on ls, or where --web.listen-address or
// --web.systemd-socket say when ls is empty, every listener behind one
// limit of maxConns connections (capped to the descriptor limit); TLS
// and basic auth come from --web.config.file as exporter-toolkit sets
// them up. It sets srv.ConnState.
func ServeLimited(srv *http.Server, ls []net.Listener, fc *web.FlagConfig, maxConns int, logger *slog.Logger) error {
	if len(ls) == 0 {
		var err error
		if ls, err = listenAll(fc, logger); err != nil {
			return err
		}
	}
	lim := newConnLimit(connsWithin(maxConns, logger), logger)
	srv.ConnState = lim.track
	for i := range ls {
		defer ls[i].Close()
		ls[i] = lim.wrap(ls[i])
	}
	return web.ServeMultiple(ls, srv, fc, logger)
}

// listenAll opens the listeners exporter-toolkit's web.ListenAndServe
// would: systemd's activated sockets with --web.systemd-socket, else one
// per --web.listen-address (TCP, or vsock://:PORT).
func listenAll(fc *web.FlagConfig, logger *slog.Logger) ([]net.Listener, error) {
	if fc.WebSystemdSocket != nil && *fc.WebSystemdSocket {
		logger.Info("Listening on systemd activated listeners instead of port listeners.")
		ls, err := activation.Listeners()
		if err != nil {
			return nil, err
		}
		if len(ls) == 0 {
			return nil, errors.New("no socket activation file descriptors found")
		}
		return ls, nil
	}
	if fc.WebListenAddresses == nil || len(*fc.WebListenAddresses) == 0 {
		return nil, errors.New("missing --web.listen-address: give at least one address, or --web.systemd-socket")
	}
	var ls []net.Listener
	for _, addr := range *fc.WebListenAddresses {
		l, err := listenOne(addr)
		if err != nil {
			for _, o := range ls {
				o.Close()
			}
			return nil, err
		}
		ls = append(ls, l)
	}
	return ls, nil
}

func listenOne(addr string) (net.Listener, error) {
	if !strings.HasPrefix(addr, "vsock://") {
		return net.Listen("tcp", addr)
	}
	u, err := url.Parse(addr)
	if err != nil {
		return nil, fmt.Errorf("--web.listen-address %s: %w", addr, err)
	}
	_, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		return nil, fmt.Errorf("--web.listen-address %s: %w", addr, err)
	}
	port, err := strconv.ParseUint(p, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("--web.listen-address %s: port: %w", addr, err)
	}
	return vsock.Listen(uint32(port), nil)
}

// connLimit is one bound on the connections open at once across every
// listener. When all max are open, a new connection is admitted by
// closing one that serves no request: first the one idle longest between
// keep-alive requests, else the oldest that has not sent its request yet.
// Only when every open connection is busy with a request does Accept wait,
// new connections waiting in the kernel's backlog (taking no descriptor
// of the process's) until one ends its request or closes. So a flood of
// idle connections neither takes every file descriptor nor keeps
// Prometheus's scrape out. The limit being reached is logged once per
// flood.
type connLimit struct {
	slots  chan struct{}
	max    int
	log    *slog.Logger
	warned atomic.Bool // the limit was logged, and half the slots have not been free since

	mu    sync.Mutex
	spare map[*limitConn]struct{} // open connections serving no request: idle, or new without a request yet
	seq   uint64                  // orders the state changes, so the oldest spare connection is found
	// freed is signalled when a connection becomes spare, so that an
	// Accept waiting at the limit tries again.
	freed chan struct{}
}

func newConnLimit(maxConns int, logger *slog.Logger) *connLimit {
	return &connLimit{
		slots: make(chan struct{}, maxConns), max: maxConns, log: logger,
		spare: map[*limitConn]struct{}{}, freed: make(chan struct{}, 1),
	}
}

// wrap returns l behind the limit.
func (c *connLimit) wrap(l net.Listener) net.Listener {
	return &limitListener{Listener: l, lim: c, done: make(chan struct{})}
}

// acquire takes a slot, closing a spare connection to free one when all
// are taken, or waiting while every open connection serves a request; it
// fails once done is closed.
func (c *connLimit) acquire(done <-chan struct{}) bool {
	for {
		select {
		case c.slots <- struct{}{}:
			return true
		default:
		}
		if !c.warned.Swap(true) {
			c.log.Warn("connection limit reached: idle connections are closed, longest idle first, to admit new ones; new connections wait while every open one serves a request",
				"max_connections", c.max)
		}
		if c.closeSpare() {
			continue
		}
		select {
		case c.slots <- struct{}{}:
			return true
		case <-c.freed:
		case <-done:
			return false
		}
	}
}

// closeSpare closes the spare connection to give up first: the one idle
// longest, else the oldest still waiting for its first request. It
// reports whether there was one; closing it gives its slot back.
func (c *connLimit) closeSpare() bool {
	c.mu.Lock()
	var victim *limitConn
	for lc := range c.spare {
		if victim == nil || lc.before(victim) {
			victim = lc
		}
	}
	if victim != nil {
		delete(c.spare, victim)
		victim.closed = true
	}
	c.mu.Unlock()
	if victim == nil {
		return false
	}
	_ = victim.Close()
	return true
}

// track is the http.Server's ConnState hook: it keeps the set of spare
// connections that closeSpare chooses from.
func (c *connLimit) track(nc net.Conn, state http.ConnState) {
	lc := asLimitConn(nc)
	if lc == nil {
		return
	}
	c.mu.Lock()
	spare := !lc.closed && (state == http.StateNew || state == http.StateIdle)
	if spare {
		c.seq++
		lc.idle, lc.since = state == http.StateIdle, c.seq
		c.spare[lc] = struct{}{}
	} else {
		delete(c.spare, lc)
	}
	c.mu.Unlock()
	if spare {
		select {
		case c.freed <- struct{}{}:
		default:
		}
	}
}

// asLimitConn finds the limitConn under the server's view of a
// connection (a *tls.Conn over it with TLS).
func asLimitConn(nc net.Conn) *limitConn {
	for range 4 { // tls.Conn over limitConn is the deepest the server goes
		switch v := nc.(type) {
		case *limitConn:
			return v
		case interface{ NetConn() net.Conn }:
			nc = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// forget drops a closed connection from the spare set.
func (c *connLimit) forget(lc *limitConn) {
	c.mu.Lock()
	lc.closed = true
	delete(c.spare, lc)
	c.mu.Unlock()
}

// release gives a slot back. Once half the slots are free again, the
// next time the limit is reached is logged: one line per flood, not one
// per connection of it.
func (c *connLimit) release() {
	<-c.slots
	if len(c.slots) <= c.max/2 {
		c.warned.Store(false)
	}
}

type limitListener struct {
	net.Listener
	lim       *connLimit
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	if !l.lim.acquire(l.done) {
		return nil, net.ErrClosed
	}
	conn, err := l.Listener.Accept()
	if err != nil {
		l.lim.release()
		return nil, err
	}
	return &limitConn{Conn: conn, lim: l.lim}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back on its first Close.
type limitConn struct {
	net.Conn
	lim  *connLimit
	once sync.Once

	// Under lim.mu: what track last saw.
	idle   bool   // idle between requests (else new, with no request yet)
	since  uint64 // lim.seq when it became spare
	closed bool
}

// before tells whether c should be closed before o: idle connections
// before new ones, each the longest spare first.
func (c *limitConn) before(o *limitConn) bool {
	if c.idle != o.idle {
		return c.idle
	}
	return c.since < o.since
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.lim.forget(c)
		c.lim.release()
	})
	return err
}

// The cap on --web.max-connections: the open-file limit less
// reservedDescriptors, which the process keeps for its own files and
// connections (listeners, state files, the API client, its logs), and
// never more than maxConnsBound (where the limit is unknown or
// unlimited, too).
const (
	reservedDescriptors = 64
	maxConnsBound       = 1 << 20
)

// connsWithin is --web.max-connections held to what the open-file limit
// allows; a value above it is capped with one WARN.
func connsWithin(requested int, logger *slog.Logger) int {
	nofile, known := descriptorLimit()
	limit := connCap(nofile, known)
	if requested <= limit {
		return requested
	}
	attrs := []any{"requested", requested, "max_connections", limit}
	if known {
		attrs = append(attrs, "open_file_limit", nofile)
	}
	logger.Warn("--web.max-connections is more than the open-file limit allows (less what the process needs itself); capped", attrs...)
	return limit
}

// connCap is the most connections a process with an open-file limit of
// nofile (known or not) may hold open.
func connCap(nofile uint64, known bool) int {
	if !known || nofile >= maxConnsBound+reservedDescriptors {
		return maxConnsBound
	}
	return max(int(nofile)-reservedDescriptors, 1)
}
