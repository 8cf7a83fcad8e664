package collector

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// The exporter's series in two collectors: the live ones, gathered on
// every scrape, and the data ones, which change only when a refresh lands
// and which internal/exposition renders once per change of DataKey.

// Live is a collector of the live series only: what the HTTP handler
// gathers on every scrape.
func (e *Exporter) Live() prometheus.Collector { return liveCollector{e} }

// Data is a collector of the data series only: for formats the rendered
// cache does not hold.
func (e *Exporter) Data() prometheus.Collector { return dataCollector{e} }

type liveCollector struct{ e *Exporter }

func (c liveCollector) Describe(ch chan<- *prometheus.Desc) { c.e.Describe(ch) }
func (c liveCollector) Collect(ch chan<- prometheus.Metric) { collectLive(ch, c.e.View()) }

type dataCollector struct{ e *Exporter }

func (c dataCollector) Describe(ch chan<- *prometheus.Desc) { c.e.Describe(ch) }
func (c dataCollector) Collect(ch chan<- prometheus.Metric) { collectData(ch, c.e.View()) }

// DataKey names the data series as shown now: the plan (a reload changes
// labels and filters), each unit's data version and freshness. It
// changes whenever Data would collect something else, so a renderer of
// Data renders again only then.
func (e *Exporter) DataKey() string {
	v := e.View()
	var b strings.Builder
	fmt.Fprintf(&b, "%d", v.Gen)
	for _, u := range v.Units {
		version, fresh := u.Version()
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(version))
		if fresh {
			b.WriteByte('+')
		}
	}
	return b.String()
}
