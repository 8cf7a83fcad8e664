package exporter

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Live collects the series gathered on every scrape.
func (e *Exporter) Live() prometheus.Collector { return liveCollector{e} }

// Data collects the series that change only when a refresh lands.
func (e *Exporter) Data() prometheus.Collector { return dataCollector{e} }

type liveCollector struct{ e *Exporter }

func (c liveCollector) Describe(ch chan<- *prometheus.Desc) { c.e.Describe(ch) }
func (c liveCollector) Collect(ch chan<- prometheus.Metric) { collectLive(ch, c.e.View()) }

type dataCollector struct{ e *Exporter }

func (c dataCollector) Describe(ch chan<- *prometheus.Desc) { c.e.Describe(ch) }
func (c dataCollector) Collect(ch chan<- prometheus.Metric) { collectData(ch, c.e.View()) }

// DataKey changes whenever Data would collect something else (a reload, new data, staleness).
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
