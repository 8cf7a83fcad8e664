package collector

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// apiMetrics counts the exporter's calls to the upstream API. It is fed by
// the client's Observer hook, so the client needs no Prometheus import.
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

// saveMetrics count the failed writes of the state files, by file.
type saveMetrics struct {
	failures *prometheus.CounterVec
}

func newSaveMetrics() *saveMetrics {
	m := &saveMetrics{failures: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mintlify_exporter_state_save_failures_total",
		Help: "Writes of the exporter's state files that failed, by file: state (the cached data) or ledger (the analytics budget spent). The exporter goes on without them; a restart loads the last ones written.",
	}, []string{"file"})}
	for _, f := range []string{"state", "ledger"} {
		m.failures.WithLabelValues(f)
	}
	return m
}
