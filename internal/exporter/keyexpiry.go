package exporter

import (
	"github.com/prometheus/client_golang/prometheus"
)

var descKeyExpiry = prometheus.NewDesc("mintlify_api_key_expiry_timestamp_seconds",
	"Unix time the API key expires: 00:00 UTC of its configured expires_at, which only the Mintlify dashboard shows (the API never tells it). Only for keys with expires_at.",
	[]string{"key"}, nil)

// keyExpiry is a collector of its own, so the families of Live and Data stay as they are.
type keyExpiry struct{ e *Exporter }

func (k keyExpiry) Describe(ch chan<- *prometheus.Desc) { ch <- descKeyExpiry }

func (k keyExpiry) Collect(ch chan<- prometheus.Metric) {
	for _, x := range k.e.View().KeyExpiries() {
		ch <- prometheus.MustNewConstMetric(descKeyExpiry, prometheus.GaugeValue, float64(x.ExpiresAt.Unix()), x.Name)
	}
}
