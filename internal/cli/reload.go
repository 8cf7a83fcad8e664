package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Reloads are a configuration's last-reload gauges, named as Prometheus names its own.
type Reloads struct{ ok, at prometheus.Gauge }

// NewReloads registers PREFIX_config_last_reload_successful and …_success_timestamp_seconds for what
// (the configuration, the routes file), loaded at now.
func NewReloads(reg prometheus.Registerer, prefix, what string, now time.Time) *Reloads {
	r := &Reloads{
		ok: prometheus.NewGauge(prometheus.GaugeOpts{Name: prefix + "_config_last_reload_successful",
			Help: "1 if the last load or reload of " + what + " succeeded, else 0."}),
		at: prometheus.NewGauge(prometheus.GaugeOpts{Name: prefix + "_config_last_reload_success_timestamp_seconds",
			Help: "Unix time of the last successful load or reload of " + what + "."}),
	}
	reg.MustRegister(r.ok, r.at)
	r.Done(nil, now)
	return r
}

// Done records a reload that ended with err at now.
func (r *Reloads) Done(err error, now time.Time) {
	if err != nil {
		r.ok.Set(0)
		return
	}
	r.ok.Set(1)
	r.at.Set(float64(now.UnixNano()) / 1e9)
}

// OnSIGHUP calls reload on each SIGHUP until ctx ends.
func OnSIGHUP(ctx context.Context, reload func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-hup:
			reload()
		case <-ctx.Done():
			return
		}
	}
}
