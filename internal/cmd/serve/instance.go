package serve

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/exporter"
)

// Options are the command's logger and the tests' hooks; the zero value is quiet, on the real clock.
type Options struct {
	Clock     exporter.Clock // nil: the real clock
	RetryBase time.Duration  // the client's first retry delay; 0: its default
	Logger    *slog.Logger   // nil: discard
	// Wait, when not nil, is set to a function that returns once no refresh runs, so tests need no sleep.
	Wait *func()
}

// Instance is an exporter with its refreshes and state file but no listener: Handler serves it.
type Instance struct {
	s   *server
	src *configSource
}

// New builds the exporter that the command line args describe.
func New(ctx context.Context, args []string, o Options) (*Instance, error) {
	var f flags
	app := newApp(&f)
	app.UsageWriter(io.Discard)
	app.ErrorWriter(io.Discard)
	if _, err := app.Parse(args); err != nil {
		return nil, err
	}
	if err := checkWebFlags(&f); err != nil {
		return nil, err
	}
	logger := cmp.Or(o.Logger, quiet)
	src, err := newConfigSource(ctx, &f, logger, o.Clock)
	if err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	cfg, err := src.load()
	if err != nil {
		src.close()
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	s, err := newServer(&f, cfg, src, logger, o)
	if err != nil {
		src.close()
		return nil, fmt.Errorf("starting the exporter: %w", err)
	}
	if o.Wait != nil {
		*o.Wait = func() { s.exporter.Wait() }
	}
	return &Instance{s: s, src: src}, nil
}

// Handler serves /metrics, the health and reload endpoints and the landing page.
func (i *Instance) Handler() http.Handler { return i.s.handler() }

// Close stops the refreshes and the demo API, if any.
func (i *Instance) Close() {
	i.s.close()
	i.src.close()
}
