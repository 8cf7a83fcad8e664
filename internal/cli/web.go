package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"
)

// Bounds of --web.read-timeout and --web.idle-timeout.
const (
	MaxReadTimeout = 10 * time.Minute // a request is a few hundred bytes
	MaxIdleTimeout = 24 * time.Hour
)

// Web holds the --web.* flags of every command that serves: the toolkit's, and the connection and timeout bounds.
type Web struct {
	*web.FlagConfig
	MaxConns    int
	ReadTimeout time.Duration
	IdleTimeout time.Duration
}

// AddWebFlags adds the shared --web.* flags with the command's defaults.
func AddWebFlags(app *kingpin.Application, listen, maxConns, readTimeout string) *Web {
	w := &Web{FlagConfig: kingpinflag.AddFlags(app, listen)}
	app.Flag("web.max-connections", "Maximum number of connections open at once, across every listen address, capped to the open-file limit less 64. At the limit, the connection idle longest is closed to admit a new one; while every one serves a request, new ones wait in the kernel's backlog.").
		Default(maxConns).IntVar(&w.MaxConns)
	app.Flag("web.read-timeout", "Maximum time to read a request, the TLS handshake included, at most 10m; a slower client is disconnected.").Default(readTimeout).DurationVar(&w.ReadTimeout)
	app.Flag("web.idle-timeout", "Maximum time a keep-alive connection stays open between requests, at most 24h.").Default("2m").DurationVar(&w.IdleTimeout)
	return w
}

// Check names the flag out of its bounds; a --web.max-connections above the descriptor limit is capped, not refused.
func (w *Web) Check() error {
	switch {
	case w.MaxConns < 1:
		return fmt.Errorf("--web.max-connections must be at least 1, got %d", w.MaxConns)
	case w.ReadTimeout <= 0 || w.ReadTimeout > MaxReadTimeout:
		return fmt.Errorf("--web.read-timeout must be more than 0s and at most %s, got %s", MaxReadTimeout, w.ReadTimeout)
	case w.IdleTimeout <= 0 || w.IdleTimeout > MaxIdleTimeout:
		return fmt.Errorf("--web.idle-timeout must be more than 0s and at most %s, got %s", MaxIdleTimeout, w.IdleTimeout)
	}
	return nil
}

// Serve serves srv on l (nil: the --web.* addresses) with the flags' timeouts, srv's ReadHeaderTimeout capped at the
// read timeout, until ctx ends; requests in progress then get grace to finish. It returns the exit status.
func (w *Web) Serve(ctx context.Context, srv *http.Server, l net.Listener, grace time.Duration, logger *slog.Logger) int {
	srv.ReadHeaderTimeout = min(srv.ReadHeaderTimeout, w.ReadTimeout)
	srv.ReadTimeout, srv.IdleTimeout = w.ReadTimeout, w.IdleTimeout
	var ls []net.Listener
	if l != nil {
		ls = []net.Listener{l}
	}
	errc := make(chan error, 1)
	go func() { errc <- ServeLimited(srv, ls, w.FlagConfig, w.MaxConns, logger) }()
	select {
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("HTTP server failed", "err", err)
			return ExitError
		}
	case <-ctx.Done():
		logger.Info("Shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			logger.Error("HTTP server shutdown failed", "err", err)
		}
		<-errc // nothing of the server outlives the command
	}
	return ExitOK
}
