package exporter

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

type series interface {
	data(w engine.Window) []prometheus.Metric
	// bookkeeping is how the window was fetched, shown even when the data is stale.
	bookkeeping(w engine.Window) []prometheus.Metric
}

func seriesOf(u engine.UnitView) series {
	k := u.Collector()
	if k.Fetched != nil {
		return fetchedSeries{collector: k, project: u.Project(), settings: u.Settings()}
	}
	return walkSeries{collector: k, walked: *k.Walked, project: u.Project(), filter: u.Filter()}
}

// fetchedSeries shows a collector's samples as window gauges, or for the month as spec.Collector.MonthOf says.
type fetchedSeries struct {
	collector spec.Collector
	project   string // label value
	settings  spec.Settings
}

func (p fetchedSeries) data(w engine.Window) []prometheus.Metric {
	// A round the budget paused shows what it finished (w.Partial).
	if (w.DataTime.IsZero() && !w.Partial) || w.Payload == nil || (w.Month && w.Range == nil) {
		return nil
	}
	samples := p.collector.Fetched.Samples(w.Payload, p.settings)
	ms := make([]prometheus.Metric, 0, len(samples))
	for _, s := range samples {
		if !w.Month {
			f := p.collector.Family(s.Family)
			ms = append(ms, prometheus.MustNewConstMetric(familyDesc(f.Name), prometheus.GaugeValue, s.Value, s.LabelValues(f, p.project, w.Label)...))
			continue
		}
		f, ok := p.collector.MonthOf(s.Family)
		switch {
		case !ok:
		case f.Counter:
			v := s.Value
			if w.Floor != nil {
				v = max(v, w.Floor[engine.KeyOf(s)])
			}
			ms = append(ms, prometheus.MustNewConstMetricWithCreatedTimestamp(familyDesc(f.Name), prometheus.CounterValue, v, w.Range.From, s.LabelValues(f, p.project, "")...))
		default:
			ms = append(ms, prometheus.MustNewConstMetric(familyDesc(f.Name), prometheus.GaugeValue, s.Value, s.LabelValues(f, p.project, w.Label)...))
		}
	}
	return ms
}

// bookkeeping is the month window's date fallback; windows have none.
func (p fetchedSeries) bookkeeping(w engine.Window) []prometheus.Metric {
	if !w.Month || (w.DataTime.IsZero() && !w.Partial) || w.Range == nil {
		return nil
	}
	return []prometheus.Metric{prometheus.MustNewConstMetric(descDateFallback, prometheus.GaugeValue, boolFloat(!w.Range.Days), p.collector.Name, p.project)}
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
