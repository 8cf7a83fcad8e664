package exporter

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// apiMetrics is fed by the client's Observer hook, so the client needs no Prometheus import.
type apiMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newAPIMetrics() *apiMetrics {
	return &apiMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_api_requests_total",
			Help: "HTTP requests the exporter sent to the Mintlify API, by endpoint and status code (code=\"error\" when no response came).",
		}, []string{"endpoint", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mintlify_api_request_duration_seconds",
			Help:    "Duration of HTTP requests to the Mintlify API, by endpoint.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"endpoint"}),
	}
}

func (m *apiMetrics) observe(endpoint string, code int, elapsed time.Duration) {
	c := "error"
	if code > 0 {
		c = strconv.Itoa(code)
	}
	m.requests.WithLabelValues(endpoint, c).Inc()
	m.duration.WithLabelValues(endpoint).Observe(elapsed.Seconds())
}

func (m *apiMetrics) Describe(ch chan<- *prometheus.Desc) {
	m.requests.Describe(ch)
	m.duration.Describe(ch)
}

func (m *apiMetrics) Collect(ch chan<- prometheus.Metric) {
	m.requests.Collect(ch)
	m.duration.Collect(ch)
}

type saveMetrics struct {
	failures    *prometheus.CounterVec
	success     *prometheus.GaugeVec
	lastSuccess *prometheus.GaugeVec
}

func newSaveMetrics() *saveMetrics {
	m := &saveMetrics{
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_exporter_state_save_failures_total",
			Help: "Writes of the exporter's state files that failed, by file: state (the cached data) or ledger (the analytics budget spent). The exporter goes on without them; a restart loads the last ones written.",
		}, []string{"file"}),
		success: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mintlify_exporter_state_save_success",
			Help: "1 if the last write of the state file (file=\"state\") or ledger (file=\"ledger\") worked, or none was needed yet; 0 from a failed write until one works. It stays 0 between saves, however far apart.",
		}, []string{"file"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mintlify_exporter_state_last_save_success_timestamp_seconds",
			Help: "When the state file or ledger was last written by this process; 0 until it has been.",
		}, []string{"file"}),
	}
	for _, f := range []string{"state", "ledger"} {
		m.failures.WithLabelValues(f)
		m.success.WithLabelValues(f).Set(1)
		m.lastSuccess.WithLabelValues(f)
	}
	return m
}

func (m *saveMetrics) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.failures, m.success, m.lastSuccess} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *saveMetrics) observe(file string, err error, now time.Time) {
	if err != nil {
		m.failures.WithLabelValues(file).Inc()
		m.success.WithLabelValues(file).Set(0)
		return
	}
	m.success.WithLabelValues(file).Set(1)
	m.lastSuccess.WithLabelValues(file).Set(float64(now.UnixNano()) / 1e9)
}
