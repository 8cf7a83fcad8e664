package exporter

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// FuzzPathLabel: whatever path the API sends, building the page series and
// gathering them must work — a bad path is dropped, never a failed scrape.
func FuzzPathLabel(f *testing.F) {
	for _, s := range []string{"/docs/a", "", "/\xff\xfe", "/a\x00b", "/é/日本", "/" + string(make([]byte, 2000)), `/"quoted"\n`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if path == "/ok" {
			return // a walk never holds one path twice
		}
		k, _ := collector.Lookup(collector.PageViews)
		p := series{collector: k, project: "docs"}
		walk := &mintlify.Walk{Requests: 1, Last: 0, Next: 1,
			Rows: []mintlify.PageViewRow{{Path: path, Counts: mintlify.Counts{Human: 1, AI: 2, Total: 3}}, {Path: "/ok", Counts: mintlify.Counts{Human: 1}}}}
		w := engine.Window{Label: "24h", DataTime: time.Unix(1, 0), Payload: &collector.WalkPayload{Data: walk}, Range: &walk.Range}
		exported := len(collector.Exported(walk, p.settings))
		if want := 1 + int(boolFloat(mintlify.PathLabelOK(path))); exported != want {
			t.Fatalf("exported %d rows, want %d", exported, want)
		}
		data, book := p.data(w), p.bookkeeping(w)
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(collectorFunc(func(ch chan<- prometheus.Metric) {
			for _, m := range append(data, book...) {
				ch <- m
			}
		}))
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
