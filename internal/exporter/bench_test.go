package exporter_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// benchExporter returns a registry holding an exporter whose cache holds
// one 24h window of n paths.
func benchExporter(b *testing.B, n int) (*prometheus.Registry, func()) {
	b.Helper()
	clock := manualclock.New(epoch)
	api, err := mockapi.Start(mockapi.Options{
		Clock:    clock,
		Keys:     []mockapi.KeySpec{{Key: testKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 11, Paths: n}},
		// A 100 000-path sweep is 400 requests: more than one hour's budget,
		// which is not what these benchmarks measure.
		AnalyticsBudgetPerHour: -1,
	})
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
global: {api_url: %s}
keys: [{name: acme, api_key_env: TEST_MINTLIFY_KEY, budget_per_hour: 10000, reserve: 0}]
projects: [{id: proj-docs, name: docs, max_paths: 0}]
`, api.URL())))
	if err != nil {
		b.Fatal(err)
	}
	exp, err := exporter.New(cfg, exporter.Options{Options: engine.Options{Collectors: collector.All,
		Clock:  clock,
		Getenv: func(string) string { return testKey },
		Logger: slog.New(slog.DiscardHandler),
	}})
	if err != nil {
		b.Fatal(err)
	}
	exp.Refresh(context.Background())
	exp.Wait()
	if got := api.Server.CountRequests(nil); got != max((n+249)/250, 1) {
		b.Fatalf("the cache was not filled: %d requests for %d paths", got, n)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(exp)
	return reg, func() { exp.Close(); _ = api.Close() }
}

// floorCollector sends prebuilt const metrics: the least any exporter of
// the same series could do on a scrape.
type floorCollector struct {
	descs   []*prometheus.Desc
	metrics []prometheus.Metric
}

func (f *floorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range f.descs {
		ch <- d
	}
}
func (f *floorCollector) Collect(ch chan<- prometheus.Metric) {
	for _, m := range f.metrics {
		ch <- m
	}
}

// floorFrom rebuilds the page-view series of reg as const metrics: the
// family is mintlify_page_views_total (counters, the default) or
// mintlify_page_views (gauges, windows other than the month).
func floorFrom(b *testing.B, reg *prometheus.Registry) *prometheus.Registry {
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	f := &floorCollector{}
	for _, mf := range mfs {
		if mf.GetName() != "mintlify_page_views" && mf.GetName() != "mintlify_page_views_total" {
			continue
		}
		var names []string
		for _, lp := range mf.Metric[0].Label {
			names = append(names, lp.GetName())
		}
		desc := prometheus.NewDesc(mf.GetName(), mf.GetHelp(), names, nil)
		f.descs = append(f.descs, desc)
		for _, m := range mf.Metric {
			lv := make([]string, 0, len(names))
			for _, lp := range m.Label {
				lv = append(lv, lp.GetValue())
			}
			t, v := prometheus.GaugeValue, m.GetGauge().GetValue()
			if mf.GetType() == dto.MetricType_COUNTER {
				t, v = prometheus.CounterValue, m.GetCounter().GetValue()
			}
			f.metrics = append(f.metrics, prometheus.MustNewConstMetric(desc, t, v, lv...))
		}
	}
	if len(f.metrics) == 0 {
		b.Fatal("no page-view series to build the floor from")
	}
	floor := prometheus.NewRegistry()
	floor.MustRegister(f)
	return floor
}

func encode(b *testing.B, g prometheus.Gatherer, w io.Writer) {
	mfs, err := g.Gather()
	if err != nil {
		b.Fatal(err)
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScrape measures a scrape from a warm cache (gather and encode)
// against the floor, alternating the two in one run; the ratio is
// reported as x_floor (target: at most 1.25 at 10 000 paths).
func BenchmarkScrape(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			reg, done := benchExporter(b, n)
			defer done()
			floor := floorFrom(b, reg)
			var te, tf time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s := time.Now()
				encode(b, reg, io.Discard)
				te += time.Since(s)
				s = time.Now()
				encode(b, floor, io.Discard)
				tf += time.Since(s)
			}
			b.ReportMetric(float64(te.Nanoseconds())/float64(b.N), "exporter_ns/scrape")
			b.ReportMetric(float64(tf.Nanoseconds())/float64(b.N), "floor_ns/scrape")
			b.ReportMetric(float64(te)/float64(tf), "x_floor")
		})
	}
}

// BenchmarkCacheMemory reports the heap a 100 000-path cache holds against
// the size of the /metrics text it encodes to (target: at most 3).
func BenchmarkCacheMemory(b *testing.B) {
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		reg, done := benchExporter(b, 100000)
		runtime.GC()
		runtime.ReadMemStats(&after)
		var buf bytes.Buffer
		encode(b, reg, &buf)
		heap := float64(after.HeapInuse) - float64(before.HeapInuse)
		b.ReportMetric(heap/(1<<20), "heap_MiB")
		b.ReportMetric(float64(buf.Len())/(1<<20), "exposition_MiB")
		b.ReportMetric(heap/float64(buf.Len()), "x_exposition")
		done()
	}
}

// BenchmarkUpstreamEfficiency simulates one hour of scraping (fake clock)
// of a 2 000-path project and reports the analytics requests made, against
// the budget (100 an hour) and against a naive exporter that sweeps on
// every scrape (8 requests a scrape).
func BenchmarkUpstreamEfficiency(b *testing.B) {
	for _, sc := range []struct {
		name     string
		scrapers int
		every    time.Duration
	}{
		{"scrapers=1/interval=5s", 1, 5 * time.Second},
		{"scrapers=1/interval=15s", 1, 15 * time.Second},
		{"scrapers=2/interval=5s", 2, 5 * time.Second},
		{"scrapers=2/interval=15s", 2, 15 * time.Second},
		{"burst=10/interval=15s", 10, 15 * time.Second},
	} {
		b.Run(sc.name, func(b *testing.B) {
			for range b.N {
				clock := manualclock.New(epoch)
				api, err := mockapi.Start(mockapi.Options{
					Clock:    clock,
					Keys:     []mockapi.KeySpec{{Key: testKey, Org: "acme"}},
					Projects: map[string]mockapi.Site{"p": {Seed: 2, Paths: 2000}},
				})
				if err != nil {
					b.Fatal(err)
				}
				cfg, _ := config.Parse([]byte(fmt.Sprintf("global: {api_url: %s}\nkeys: [{name: acme, api_key_env: K}]\nprojects: [{id: p}]\n", api.URL())))
				exp, err := exporter.New(cfg, exporter.Options{Options: engine.Options{Collectors: collector.All, Clock: clock, Getenv: func(string) string { return testKey }, Logger: slog.New(slog.DiscardHandler)}})
				if err != nil {
					b.Fatal(err)
				}
				scrapes := 0
				for t := time.Duration(0); t < time.Hour; t += sc.every {
					done := make(chan struct{})
					for range sc.scrapers {
						go func() { exp.Refresh(context.Background()); done <- struct{}{} }()
					}
					for range sc.scrapers {
						<-done
					}
					exp.Wait()
					scrapes += sc.scrapers
					clock.Advance(sc.every)
				}
				requests := api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == mockapi.EndpointViews })
				limited := api.Server.CountRequests(func(r mockapi.Request) bool { return r.Status == 429 })
				naive := scrapes * 8
				b.ReportMetric(float64(requests), "requests/h")
				b.ReportMetric(float64(requests)/100, "x_budget")
				b.ReportMetric(float64(naive), "naive_requests/h")
				b.ReportMetric(float64(naive)/float64(requests), "x_fewer_than_naive")
				b.ReportMetric(float64(limited), "429s")
				exp.Close()
				_ = api.Close()
			}
		})
	}
}
