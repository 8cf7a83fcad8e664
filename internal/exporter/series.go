package exporter

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// series are the series of a unit's collector: its samples as window gauges, or for the month as
// spec.Collector.MonthOf says.
type series struct {
	collector spec.Collector
	project   string // label value
	settings  spec.Settings
}

func seriesOf(u engine.UnitView) series {
	return series{collector: u.Collector(), project: u.Project(), settings: u.Settings()}
}

// data shares label pairs between samples (a path's ai and human, every traffic pair): a project can have
// 10 000 paths, so a scrape builds no more of them than it must.
func (p series) data(w engine.Window) []prometheus.Metric {
	// A refresh the budget paused shows what it finished (w.Partial).
	if (w.DataTime.IsZero() && !w.Partial) || w.Payload == nil || (w.Month && w.Range == nil) {
		return nil
	}
	samples := p.collector.Fetched.Samples(w.Payload, p.settings)
	ms := make([]prometheus.Metric, 0, len(samples))
	backing := make([]sample, len(samples))
	var created *timestamppb.Timestamp
	if w.Month {
		created = timestamppb.New(w.Range.From)
	}
	pairs := pairCache{fixed: map[string]*dto.LabelPair{"project": labelPair("project", p.project), "window": labelPair("window", w.Label)}}
	var last string
	var f spec.Family
	var ok bool
	var desc *prometheus.Desc
	for i, s := range samples {
		if i == 0 || s.Family != last {
			if last = s.Family; w.Month {
				f, ok = p.collector.MonthOf(s.Family)
			} else {
				f, ok = p.collector.Family(s.Family), true
			}
			if ok {
				desc = familyDesc(f.Name)
			}
		}
		if !ok {
			continue
		}
		m := &backing[i]
		m.desc, m.value, m.labels = desc, s.Value, pairs.of(f.Labels, s.Labels, len(samples)-i)
		if f.Counter {
			m.created = created
			if w.Floor != nil {
				m.value = max(m.value, w.Floor[engine.KeyOf(s)])
			}
		}
		ms = append(ms, m)
	}
	return ms
}

// pairCache keeps each label's last two pairs: samples come a path's ai then human, traffic alternating.
type pairCache struct {
	fixed   map[string]*dto.LabelPair
	last    [8][2]*dto.LabelPair
	backing []*dto.LabelPair
}

// of is the pairs of names (sorted, as the registry expects) with the values of labels; room for the samples left.
func (c *pairCache) of(names []string, labels []spec.Label, left int) []*dto.LabelPair {
	if len(c.backing) < len(names) {
		c.backing = make([]*dto.LabelPair, left*len(names))
	}
	out := c.backing[:len(names):len(names)]
	c.backing = c.backing[len(names):]
	for i, name := range names {
		if p, ok := c.fixed[name]; ok {
			out[i] = p
			continue
		}
		value := ""
		for _, l := range labels {
			if l.Name == name {
				value = l.Value
			}
		}
		last := &c.last[i%len(c.last)]
		switch {
		case last[0] != nil && last[0].GetName() == name && last[0].GetValue() == value:
			out[i] = last[0]
		case last[1] != nil && last[1].GetName() == name && last[1].GetValue() == value:
			out[i] = last[1]
		default:
			out[i] = labelPair(name, value)
			last[0], last[1] = out[i], last[0]
		}
	}
	return out
}

// bookkeeping is how the window was fetched, shown even when the data is older than max_age, so a stuck
// walk can be seen: the month's date fallback, and the collector's Bookkeeping families.
func (p series) bookkeeping(w engine.Window) []prometheus.Metric {
	var ms []prometheus.Metric
	if w.Month && (!w.DataTime.IsZero() || w.Partial) && w.Range != nil {
		ms = append(ms, prometheus.MustNewConstMetric(descDateFallback, prometheus.GaugeValue, boolFloat(!w.Range.Days), p.collector.Name, p.project))
	}
	b, ok := p.collector.Fetched.(spec.Bookkept)
	if !ok || w.Payload == nil {
		return ms
	}
	for _, s := range b.Bookkeeping(w.Payload, p.settings) {
		i := slices.IndexFunc(p.collector.Bookkeeping, func(f spec.Family) bool { return f.Name == s.Family })
		if i < 0 {
			continue
		}
		f := p.collector.Bookkeeping[i]
		ms = append(ms, prometheus.MustNewConstMetric(familyDesc(f.Name), prometheus.GaugeValue, s.Value, s.LabelValues(f, p.project, w.Label)...))
	}
	return ms
}

func emitHealth(ch chan<- prometheus.Metric, h engine.Health) {
	lv := []string{h.Collector, h.Project}
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, boolFloat(h.Up), lv...)
	if !h.LastSuccess.IsZero() {
		ch <- prometheus.MustNewConstMetric(descLastSuccess, prometheus.GaugeValue, float64(h.LastSuccess.UnixNano())/1e9, lv...)
	}
	ch <- prometheus.MustNewConstMetric(descInterval, prometheus.GaugeValue, h.Interval.Seconds(), lv...)
	ch <- prometheus.MustNewConstMetric(descPartial, prometheus.GaugeValue, boolFloat(h.Partial), lv...)
	for _, r := range mintlify.Reasons {
		ch <- prometheus.MustNewConstMetric(descRefreshFailures, prometheus.CounterValue, h.FailCounts[r], h.Collector, h.Project, r)
	}
}

func emitKey(ch chan<- prometheus.Metric, k engine.KeyView) {
	ch <- prometheus.MustNewConstMetric(descBudgetLimit, prometheus.GaugeValue, float64(k.Limit), k.Name)
	ch <- prometheus.MustNewConstMetric(descBudgetUsed, prometheus.GaugeValue, float64(k.Used), k.Name)
	ch <- prometheus.MustNewConstMetric(descBudgetCycle, prometheus.GaugeValue, k.Cycle.Seconds(), k.Name)
	ch <- prometheus.MustNewConstMetric(descBackoff, prometheus.GaugeValue, k.Backoff.Seconds(), k.Name)
}

func emitJobs(ch chan<- prometheus.Metric, st engine.JobsStatus) {
	ch <- prometheus.MustNewConstMetric(descJobsNotFound, prometheus.CounterValue, st.NotFound, st.Project)
	ch <- prometheus.MustNewConstMetric(descJobsTracked, prometheus.GaugeValue, float64(st.Tracked), st.Project)
	ch <- prometheus.MustNewConstMetric(descJobsIgnored, prometheus.GaugeValue, float64(st.Ignored), st.Project)
	for _, t := range st.Jobs {
		id, j := t.ID, t.Job
		for _, s := range mintlify.JobStatuses {
			ch <- prometheus.MustNewConstMetric(descJobStatus, prometheus.GaugeValue, boolFloat(j.Status == s), id, st.Project, string(s))
		}
		ref := ""
		if j.Ref != nil {
			ref = *j.Ref
		}
		ch <- prometheus.MustNewConstMetric(descJobInfo, prometheus.GaugeValue, 1, id, j.Model, st.Project, ref, j.Repository)
		if j.PRLink != nil {
			ch <- prometheus.MustNewConstMetric(descJobPR, prometheus.GaugeValue, 1, id, st.Project, *j.PRLink)
		}
		if !j.CreatedAt.IsZero() {
			ch <- prometheus.MustNewConstMetric(descJobCreated, prometheus.GaugeValue, float64(j.CreatedAt.UnixNano())/1e9, id, st.Project)
		}
		if j.Status == mintlify.JobArchived && j.ArchivedAt != nil {
			ch <- prometheus.MustNewConstMetric(descJobArchived, prometheus.GaugeValue, float64(j.ArchivedAt.UnixNano())/1e9, id, st.Project)
		}
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
