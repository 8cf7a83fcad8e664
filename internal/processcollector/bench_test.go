//go:build linux

package processcollector

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
)

// BenchmarkCollect gathers this collector and client_golang's, each from
// its own registry, alternating in one loop; x_client_golang is ours over
// theirs. A registry whose collector sends the same nine series from
// memory is timed in the same loop (base_ns): what a gather costs before
// any file is read. x_client_golang_own compares the two above it.
func BenchmarkCollect(b *testing.B) {
	ours, theirs, base := prometheus.NewRegistry(), prometheus.NewRegistry(), prometheus.NewRegistry()
	ours.MustRegister(New())
	theirs.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mfs, err := ours.Gather()
	if err != nil {
		b.Fatal(err)
	}
	base.MustRegister(fixed{mfs})
	var tOurs, tTheirs, tBase time.Duration
	timed := func(d *time.Duration, g prometheus.Gatherer) {
		start := time.Now()
		if _, err := g.Gather(); err != nil {
			b.Fatal(err)
		}
		*d += time.Since(start)
	}
	for b.Loop() {
		timed(&tOurs, ours)
		timed(&tTheirs, theirs)
		timed(&tBase, base)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tOurs.Nanoseconds())/n, "ours_ns")
	b.ReportMetric(float64(tTheirs.Nanoseconds())/n, "client_golang_ns")
	b.ReportMetric(float64(tBase.Nanoseconds())/n, "base_ns")
	b.ReportMetric(float64(tOurs)/float64(tTheirs), "x_client_golang")
	b.ReportMetric(float64(tOurs-tBase)/float64(tTheirs-tBase), "x_client_golang_own")
}

// fixed sends the series of mfs again, as constant metrics.
type fixed struct{ mfs []*dto.MetricFamily }

func (f fixed) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(f, ch) }

func (f fixed) Collect(ch chan<- prometheus.Metric) {
	for _, mf := range f.mfs {
		m := mf.Metric[0]
		d := prometheus.NewDesc(mf.GetName(), mf.GetHelp(), nil, nil)
		if mf.GetType() == dto.MetricType_COUNTER {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, m.GetCounter().GetValue())
			continue
		}
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, m.GetGauge().GetValue())
	}
}
