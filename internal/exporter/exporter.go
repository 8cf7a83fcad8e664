// Package collector turns the refresh engine's state into Prometheus metrics. Collect only reads
// the engine's cache: refreshes are the engine's, paced by the analytics budget.
package exporter

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
)

// Clock tells the time; tests pass a fake one.
type Clock = engine.Clock

// Options are the engine's options and where the exporter's own metrics go.
type Options struct {
	engine.Options
	Registerer prometheus.Registerer // for API request and state-file metrics; nil leaves them out
}

// Exporter is a prometheus.Collector over the engine of every configured project.
type Exporter struct {
	*engine.Engine
}

// New fails if a key cannot be read or is not an admin key; a state file's data is served at once.
func New(cfg *config.Config, o Options) (*Exporter, error) {
	api := newAPIMetrics()
	eo := o.Options
	eo.OnRequest = api.observe
	if o.Registerer != nil {
		if err := o.Registerer.Register(api); err != nil {
			return nil, fmt.Errorf("registering API metrics: %w", err)
		}
		if o.StoragePath != "" {
			saves := newSaveMetrics()
			if err := saves.register(o.Registerer); err != nil {
				return nil, fmt.Errorf("registering state metrics: %w", err)
			}
			eo.OnSave = saves.observe
		}
	}
	eng, err := engine.New(cfg, eo)
	if err != nil {
		return nil, err
	}
	e := &Exporter{Engine: eng}
	if o.Registerer != nil {
		if err := o.Registerer.Register(keyExpiry{e}); err != nil {
			eng.Close()
			return nil, fmt.Errorf("registering key expiry: %w", err)
		}
	}
	return e, nil
}

func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect does no I/O.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	v := e.View()
	collectLive(ch, v)
	collectData(ch, v)
}

func collectLive(ch chan<- prometheus.Metric, v engine.View) {
	for _, u := range v.Units {
		emitHealth(ch, u.Health())
	}
	for _, j := range v.Jobs {
		emitHealth(ch, j.Health())
		emitJobs(ch, j.Jobs())
	}
	for _, k := range v.Keys() {
		emitKey(ch, k)
	}
}

func collectData(ch chan<- prometheus.Metric, v engine.View) {
	for _, u := range v.Units {
		fresh := u.Fresh()
		sr := seriesOf(u)
		if fresh {
			var ms []prometheus.Metric // built under the unit's lock, sent after it
			u.Windows(func(w engine.Window) { ms = append(ms, sr.data(w)...) })
			for _, m := range ms {
				ch <- m
			}
		}
		book := u.Memo(func() any {
			var ms []prometheus.Metric
			u.Windows(func(w engine.Window) { ms = append(ms, sr.bookkeeping(w)...) })
			return ms
		}).([]prometheus.Metric)
		for _, m := range book {
			ch <- m
		}
	}
}
