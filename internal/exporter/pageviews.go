package exporter

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// walkSeries are the series of a walked collector: page views or unique visitors.
type walkSeries struct {
	collector spec.Collector
	walked    spec.Walked
	project   string // label value
	filter    engine.PathFilter
}

func (p walkSeries) desc(name string, month bool) *prometheus.Desc {
	if month {
		f, _ := p.collector.MonthOf(name)
		name = f.Name
	}
	return familyDesc(name)
}

// data uses the last complete walk or, before the first completes, the walk in progress.
func (p walkSeries) data(w engine.Window) []prometheus.Metric {
	walk := w.Shown
	if walk == nil {
		return nil
	}
	project := labelPair("project", p.project)
	traffic := map[string]*dto.LabelPair{}
	for _, t := range []string{spec.TrafficHuman, spec.TrafficAI, spec.TrafficOther} {
		traffic[t] = labelPair("traffic", t)
	}
	n := 4
	window := labelPair("window", w.Label)
	var created *timestamppb.Timestamp
	if w.Month {
		n, window = 3, nil
		created = timestamppb.New(walk.Range.From)
	}

	keep := p.filter.Exported(walk)
	descPage := p.desc(p.walked.Page, w.Month)
	samples := make([]prometheus.Metric, 0, 2*len(keep)+3)
	backing := make([]sample, 0, 2*len(keep)) // PathSamples: two a row, so no append moves it
	labels := make([]*dto.LabelPair, 2*n*len(keep))
	var path *dto.LabelPair // shared by a path's samples, which come one after the other
	p.walked.PathSamples(keep, func(value, t string, v float64) {
		if w.Floor != nil {
			v = max(v, w.Floor[engine.CounterKey{Family: p.walked.Page, A: value, B: t}])
		}
		if path == nil || path.GetValue() != value {
			path = labelPair("path", value)
		}
		i := len(backing)
		ls := labels[n*i : n*(i+1) : n*(i+1)]
		ls[0], ls[1], ls[2] = path, project, traffic[t]
		if window != nil {
			ls[3] = window
		}
		backing = append(backing, sample{desc: descPage, labels: ls, value: v, created: created})
		samples = append(samples, &backing[i])
	})
	for _, s := range p.walked.SiteSamples(walk.Totals) {
		pairs := []*dto.LabelPair{project, window}
		for _, l := range s.Labels {
			pairs = append(pairs, traffic[l.Value])
		}
		m := newSample(p.desc(s.Family, w.Month), s.Value, pairs...)
		if s.Family != p.walked.Unique {
			m.created = created
			if w.Floor != nil {
				m.value = max(m.value, w.Floor[engine.KeyOf(s)])
			}
		}
		samples = append(samples, m)
	}
	return samples
}

// bookkeeping is shown even when the data is older than max_age, so a stuck walk can be seen.
func (p walkSeries) bookkeeping(w engine.Window) []prometheus.Metric {
	data := w.Shown
	if !p.walked.Walk || data == nil {
		return nil
	}
	exported := len(p.filter.Exported(data))
	truncated := data.Truncated || !w.Complete
	remaining := w.Remaining
	lv := []string{p.project, w.Label}
	var fallback []prometheus.Metric
	if w.Month {
		fallback = append(fallback, prometheus.MustNewConstMetric(descDateFallback, prometheus.GaugeValue, boolFloat(!data.Range.Days), p.collector.Name, p.project))
	}
	return append(fallback,
		prometheus.MustNewConstMetric(descPathsExported, prometheus.GaugeValue, float64(exported), lv...),
		prometheus.MustNewConstMetric(descPathsDropped, prometheus.GaugeValue, float64(data.Dropped+data.Merged+len(data.Rows)-exported), lv...),
		prometheus.MustNewConstMetric(descSweepTruncated, prometheus.GaugeValue, boolFloat(truncated), lv...),
		prometheus.MustNewConstMetric(descSweepDuplicates, prometheus.GaugeValue, float64(data.Duplicates), lv...),
		prometheus.MustNewConstMetric(descSweepRequests, prometheus.GaugeValue, float64(data.Requests), lv...),
		prometheus.MustNewConstMetric(descWalkRepeated, prometheus.GaugeValue, boolFloat(data.Repeated), lv...),
		prometheus.MustNewConstMetric(descWalkPagesLeft, prometheus.GaugeValue, float64(remaining), lv...),
	)
}
