package collector

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// The data series (page views, visitors, feedback, searches, assistant)
// change only when a refresh lands, once every few minutes, while
// Prometheus scrapes every few seconds. So they are not rebuilt per
// scrape: the exporter encodes them once per change, for the format asked
// (with a gzip copy of each family), and a scrape writes those bytes and
// encodes only the few live series (health, budget, jobs, the exporter's
// own). This is the shape of kube-state-metrics' metrics store.

// Family is one metric family of the data series, encoded in one
// exposition format, and the same bytes as a gzip member (gzip members
// concatenate into one stream).
type Family struct {
	Name string
	Text []byte
	Gzip []byte
}

// Live is a collector of the live series only: what the HTTP handler
// gathers on every scrape.
func (e *Exporter) Live() prometheus.Collector { return liveCollector{e} }

// Data is a collector of the data series only: for formats the rendered
// cache does not hold.
func (e *Exporter) Data() prometheus.Collector { return dataCollector{e} }

type liveCollector struct{ e *Exporter }

func (c liveCollector) Describe(ch chan<- *prometheus.Desc) { c.e.Describe(ch) }
func (c liveCollector) Collect(ch chan<- prometheus.Metric) { c.e.collect(ch, true, false) }

type dataCollector struct{ e *Exporter }

func (c dataCollector) Describe(ch chan<- *prometheus.Desc) { c.e.Describe(ch) }
func (c dataCollector) Collect(ch chan<- prometheus.Metric) { c.e.collect(ch, false, true) }

type renderCache struct {
	mu   sync.Mutex
	key  string
	fams []Family
	reg  *prometheus.Registry // holds dataCollector
}

// Rendered returns the data families encoded in format, sorted by name,
// rendering them again only if the data changed since the last call (a
// refresh landed, data went stale, a reload) or the format differs.
func (e *Exporter) Rendered(format expfmt.Format) ([]Family, error) {
	key := e.renderKey(format)
	c := &e.render
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fams != nil && c.key == key {
		return c.fams, nil
	}
	if c.reg == nil {
		c.reg = prometheus.NewRegistry()
		c.reg.MustRegister(e.Data())
	}
	mfs, err := c.reg.Gather()
	if err != nil {
		return nil, err
	}
	fams := make([]Family, 0, len(mfs))
	var buf bytes.Buffer
	zw := gzip.NewWriter(nil)
	for _, mf := range mfs {
		buf.Reset()
		if err := expfmt.NewEncoder(&buf, format).Encode(mf); err != nil {
			return nil, fmt.Errorf("encoding %s: %w", mf.GetName(), err)
		}
		text := bytes.Clone(buf.Bytes())
		var gz bytes.Buffer
		zw.Reset(&gz)
		if _, err := zw.Write(text); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		fams = append(fams, Family{Name: mf.GetName(), Text: text, Gzip: bytes.Clone(gz.Bytes())})
	}
	c.key, c.fams = key, fams
	return fams, nil
}

// renderKey names the data as shown now: the plan (a reload changes
// labels and filters), each unit's data version and freshness, and the
// format.
func (e *Exporter) renderKey(format expfmt.Format) string {
	p := e.current()
	now := e.clock.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", p.gen, format)
	for _, u := range p.units {
		v, fresh := u.dataVersion(now)
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(v))
		if fresh {
			b.WriteByte('+')
		}
	}
	return b.String()
}
