package source

import (
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Page views and unique visitors are walked page by page (mintlify.Walk:
// the engine resumes a walk across grants of the budget, the backfill
// rebuilds each day's walk from its journal), not fetched whole as the
// Fetched kinds are. This file says, for both, which endpoint is walked and
// what a walk's rows and totals become: the one mapping from a walk to
// samples that the exporter's window gauges and month counters and the
// backfill's lines all come from.

// The traffic label values. There is deliberately no "total": sum()
// does that.
const (
	TrafficHuman = "human"
	TrafficAI    = "ai"
	// TrafficOther is what a site total holds beyond human + ai.
	TrafficOther = "other"
)

// Walked is a kind walked page by page.
type Walked struct {
	Rows mintlify.RowsKind // the endpoint walked
	// The gauge families of one path and of the whole site.
	Page, Site string
	// Unique is the family of the site's visitors de-duplicated across
	// traffic types: they do not add up, so the total is no sum and gets
	// a name of its own. "" when the traffic types add up (page views).
	Unique string
	// Walk: the walk's own figures (mintlify_page_views_paths, _sweep_*,
	// _walk_*: paths exported and dropped, requests, pages left) are shown
	// for this kind's walks.
	Walk bool
}

// Views names the walked kind of every page's views, month to date: the
// one the backfill walks day by day beside the other kinds' counters, and
// whose month walk's pages the exporter records in the ledger for the
// backfill's estimate.
const Views = kind.PageViews

var walked = map[string]Walked{
	kind.PageViews: {Rows: mintlify.Views, Page: "mintlify_page_views", Site: "mintlify_site_page_views", Walk: true},
	kind.Visitors: {Rows: mintlify.Visitors, Page: "mintlify_page_visitors", Site: "mintlify_site_visitors",
		Unique: "mintlify_site_unique_visitors"},
}

// LookupWalked is the walked kind named name; ok is false for the
// others.
func LookupWalked(name string) (w Walked, ok bool) {
	w, ok = walked[name]
	return w, ok
}

// PathSamples calls emit with the two samples of each row of rows, of the
// family Page: the ai one first, then the human one (the registry sorts
// each family by label values, and input already in that order sorts
// fastest). rows are those exported: the walk's, after the project's
// path filter and max_paths.
func (w Walked) PathSamples(rows []mintlify.PageViewRow, emit func(path, traffic string, value float64)) {
	for _, r := range rows {
		emit(r.Path, TrafficAI, r.AI)
		emit(r.Path, TrafficHuman, r.Human)
	}
}

// SiteSamples are the samples of a walk's site totals: human and ai of
// the family Site, then what the total holds beyond them as other (page
// views) or the de-duplicated total of the family Unique (visitors).
func (w Walked) SiteSamples(t mintlify.Counts) []Sample {
	out := []Sample{
		{Family: w.Site, Labels: []Label{{"traffic", TrafficHuman}}, Value: t.Human},
		{Family: w.Site, Labels: []Label{{"traffic", TrafficAI}}, Value: t.AI},
	}
	switch other := t.Total - t.Human - t.AI; {
	case w.Unique != "":
		out = append(out, Sample{Family: w.Unique, Value: t.Total})
	case other > 0:
		out = append(out, Sample{Family: w.Site, Labels: []Label{{"traffic", TrafficOther}}, Value: other})
	}
	return out
}
