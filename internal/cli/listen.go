package cli

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

	"github.com/coreos/go-systemd/v22/activation"
	"github.com/mdlayher/vsock"
	"github.com/prometheus/exporter-toolkit/web"
)

// ServeLimited serves srv on ls (or the --web.* addresses) behind one limit of maxConns connections; it sets srv.ConnState.
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

// connLimit bounds connections across listeners: at the limit it closes a spare (idle or requestless) one, else
// Accept waits, so a flood of idle connections neither takes every descriptor nor keeps scrapes out.
type connLimit struct {
	slots  chan struct{}
	max    int
	log    *slog.Logger
	warned atomic.Bool // the limit was logged, and half the slots have not been free since

	mu    sync.Mutex
	spare map[*limitConn]struct{} // open connections serving no request: idle, or new without a request yet
	seq   uint64                  // orders the state changes, so the oldest spare connection is found
	freed chan struct{}
}

func newConnLimit(maxConns int, logger *slog.Logger) *connLimit {
	return &connLimit{
		slots: make(chan struct{}, maxConns), max: maxConns, log: logger,
		spare: map[*limitConn]struct{}{}, freed: make(chan struct{}, 1),
	}
}

func (c *connLimit) wrap(l net.Listener) net.Listener {
	return &limitListener{Listener: l, lim: c, done: make(chan struct{})}
}

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

func (c *connLimit) forget(lc *limitConn) {
	c.mu.Lock()
	lc.closed = true
	delete(c.spare, lc)
	c.mu.Unlock()
}

// release logs the next flood once half the slots are free again: one line per flood, not per connection.
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

type limitConn struct {
	net.Conn
	lim  *connLimit
	once sync.Once

	idle   bool   // idle between requests (else new, with no request yet)
	since  uint64 // lim.seq when it became spare
	closed bool
}

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

// reservedDescriptors are kept for the process's own files (listeners, state files, the API client, logs).
const (
	reservedDescriptors = 64
	maxConnsBound       = 1 << 20
)

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

func connCap(nofile uint64, known bool) int {
	if !known || nofile >= maxConnsBound+reservedDescriptors {
		return maxConnsBound
	}
	return max(int(nofile)-reservedDescriptors, 1)
}
