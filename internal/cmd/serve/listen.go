package serve

// Listening: the sockets --web.listen-address and --web.systemd-socket
// name, as exporter-toolkit opens them, behind one limit on the
// connections open at once (--web.max-connections), so that a flood of
// idle connections cannot take every file descriptor or grow memory
// without bound.

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coreos/go-systemd/v22/activation"
	"github.com/mdlayher/vsock"
	"github.com/prometheus/exporter-toolkit/web"
)

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
// listener: when all max are open, Accept waits, and new connections wait
// in the kernel's backlog (taking no descriptor of the exporter's) until
// one closes. It logs when the limit is reached, once per flood.
type connLimit struct {
	slots  chan struct{}
	max    int
	log    *slog.Logger
	warned atomic.Bool // the limit was logged, and half the slots have not been free since
}

func newConnLimit(maxConns int, logger *slog.Logger) *connLimit {
	return &connLimit{slots: make(chan struct{}, maxConns), max: maxConns, log: logger}
}

// wrap returns l behind the limit.
func (c *connLimit) wrap(l net.Listener) net.Listener {
	return &limitListener{Listener: l, lim: c, done: make(chan struct{})}
}

// acquire takes a slot, waiting while all are taken, or fails once done
// is closed.
func (c *connLimit) acquire(done <-chan struct{}) bool {
	select {
	case c.slots <- struct{}{}:
		return true
	default:
	}
	if !c.warned.Swap(true) {
		c.log.Warn("connection limit reached: new connections wait until one closes (idle ones close after --web.idle-timeout)",
			"max_connections", c.max)
	}
	select {
	case c.slots <- struct{}{}:
		return true
	case <-done:
		return false
	}
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
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.lim.release)
	return err
}
