package collector

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
)

// traffic label values. There is deliberately no "total": sum() does that.
const (
	trafficHuman = "human"
	trafficAI    = "ai"
	trafficOther = "other"
)

// walkSeries are the series of a page-view walk: the page views, or with
// visitors set the unique visitors, which walk the same way and export the
// same shape under their own metric names.
type walkSeries struct {
	visitors bool
	project  string // label value
	filter   engine.PathFilter
}

func (p walkSeries) name() string {
	if p.visitors {
		return kind.Visitors
	}
	return kind.PageViews
}

// descs returns the page and site descriptors of the collector's kind.
func (p walkSeries) descs() (page, site *prometheus.Desc) {
	if p.visitors {
		return descPageVisitors, descSiteVisitors
	}
	return descPageViews, descSitePageViews
}

// series builds the window's page and site series from its last complete
// walk or, before the first one completes, from the walk in progress.
func (p walkSeries) data(w engine.Window) []prometheus.Metric {
	walk := w.Shown
	if walk == nil {
		return nil
	}
	descPage, descSite := p.descs()
	project := labelPair("project", p.project)
	human := labelPair("traffic", trafficHuman)
	ai := labelPair("traffic", trafficAI)
	// Label pairs sorted by name: path, project, traffic, window. The
	// month window's counters have no window label, and the start of the
	// month as their created timestamp.
	n := 4
	window := labelPair("window", w.Label)
	var created *timestamppb.Timestamp
	if w.Month {
		n, window = 3, nil
		created = timestamppb.New(walk.Range.From)
		descPage, descSite = descPageViewsTotal, descSitePageViewsTotal
	}
	site := func(v float64, traffic *dto.LabelPair) *sample {
		pairs := []*dto.LabelPair{project, traffic}
		if window != nil {
			pairs = append(pairs, window)
		}
		s := newSample(descSite, v, pairs...)
		s.created = created
		return s
	}

	keep := p.filter.Exported(walk)
	samples := make([]prometheus.Metric, 0, 2*len(keep)+3)
	backing := make([]sample, 2*len(keep))
	labels := make([]*dto.LabelPair, 2*n*len(keep))
	for i, r := range keep {
		path := labelPair("path", r.Path)
		lh := labels[2*n*i : 2*n*i+n : 2*n*i+n]
		lh[0], lh[1], lh[2] = path, project, human
		la := labels[2*n*i+n : 2*n*(i+1) : 2*n*(i+1)]
		la[0], la[1], la[2] = path, project, ai
		if window != nil {
			lh[3], la[3] = window, window
		}
		// ai before human: the registry sorts each family by label values
		// on every scrape, and input already in that order sorts fastest.
		backing[2*i] = sample{desc: descPage, labels: la, value: r.AI, created: created}
		backing[2*i+1] = sample{desc: descPage, labels: lh, value: r.Human, created: created}
		samples = append(samples, &backing[2*i], &backing[2*i+1])
	}
	t := walk.Totals
	samples = append(samples, site(t.Human, human), site(t.AI, ai))
	switch other := t.Total - t.Human - t.AI; {
	case p.visitors:
		// The visitors total counts a visitor once even if it came as both
		// human and AI: it is no sum, so it gets its own name.
		samples = append(samples, newSample(descSiteUniqueVisitors, t.Total, project, window))
	case other > 0:
		samples = append(samples, site(other, labelPair("traffic", trafficOther)))
	}
	return samples
}

// bookkeeping are the walk's figures (page views only). They are shown
// even when the data is older than max_age, so a stuck walk can be seen.
func (p walkSeries) bookkeeping(w engine.Window) []prometheus.Metric {
	data := w.Shown
	if p.visitors || data == nil {
		return nil
	}
	exported := len(p.filter.Exported(data))
	truncated := data.Truncated || !w.Complete
	remaining := w.Remaining
	lv := []string{p.project, w.Label}
	var fallback []prometheus.Metric
	if w.Month {
		fallback = append(fallback, prometheus.MustNewConstMetric(descDateFallback, prometheus.GaugeValue, boolFloat(!data.Range.Days), p.name(), p.project))
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
