package collector

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

var descKeyExpiry = prometheus.NewDesc("mintlify_api_key_expiry_timestamp_seconds",
	"Unix time the API key expires: 00:00 UTC of its configured expires_at, which only the Mintlify dashboard shows (the API never tells it). Only for keys with expires_at.",
	[]string{"key"}, nil)

// keyExpiry serves the configured expiry dates: configuration, not engine state, swapped whole on a reload.
type keyExpiry struct {
	metrics atomic.Pointer[[]prometheus.Metric]
}

func newKeyExpiry(cfg *config.Config) *keyExpiry {
	k := &keyExpiry{}
	k.set(cfg)
	return k
}

func (k *keyExpiry) set(cfg *config.Config) {
	var ms []prometheus.Metric
	for _, key := range cfg.Keys {
		if !key.ExpiresAt.IsZero() {
			ms = append(ms, prometheus.MustNewConstMetric(descKeyExpiry, prometheus.GaugeValue, float64(key.ExpiresAt.Unix()), key.Name))
		}
	}
	k.metrics.Store(&ms)
}

func (k *keyExpiry) Describe(ch chan<- *prometheus.Desc) { ch <- descKeyExpiry }

func (k *keyExpiry) Collect(ch chan<- prometheus.Metric) {
	for _, m := range *k.metrics.Load() {
		ch <- m
	}
}

// Apply is engine.Apply, then the new keys' expiry dates.
func (e *Exporter) Apply(cfg *config.Config) error {
	if err := e.Engine.Apply(cfg); err != nil {
		return err
	}
	e.expiry.set(cfg)
	return nil
}

// ApplyKeys is engine.ApplyKeys, then the new keys' expiry dates.
func (e *Exporter) ApplyKeys(cfg *config.Config, secrets map[string]secret.Secret) error {
	if err := e.Engine.ApplyKeys(cfg, secrets); err != nil {
		return err
	}
	e.expiry.set(cfg)
	return nil
}
