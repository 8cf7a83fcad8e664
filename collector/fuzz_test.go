package collector

import (
	"time"

	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// FuzzPathLabel: whatever path the API sends, building the page series and
// gathering them must work — a bad path is dropped, never a failed scrape.
func FuzzPathLabel(f *testing.F) {
	for _, s := range []string{"/docs/a", "", "/\xff\xfe", "/a\x00b", "/é/日本", "/" + string(make([]byte, 2000)), `/"quoted"\n`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		p := &pageViews{project: "docs", windows: []*windowCache{{label: "24h", ok: true,
			rows: []mintlify.PageViewRow{{Path: path, Counts: mintlify.Counts{Human: 1, AI: 2, Total: 3}}, {Path: "/ok", Counts: mintlify.Counts{Human: 1}}}}}}
		p.build(p.windows[0])
		w := p.windows[0]
		if w.exported+w.dropped != 2 {
			t.Fatalf("exported %d + dropped %d != 2", w.exported, w.dropped)
		}
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(collectorFunc(func(ch chan<- prometheus.Metric) { p.collect(ch, time.Time{}, true) }))
		if _, err := reg.Gather(); err != nil {
			t.Fatalf("gather failed for path %q: %v", path, err)
		}
	})
}

type collectorFunc func(chan<- prometheus.Metric)

func (f collectorFunc) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}
func (f collectorFunc) Collect(ch chan<- prometheus.Metric) { f(ch) }
