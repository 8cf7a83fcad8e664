package source

import (
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Page views and visitors are walked page by page (mintlify.Walk), resumed across budget grants; this file
// is the one mapping from a walk to samples, for the exporter's gauges and counters and the backfill's lines.

// Traffic label values; deliberately no "total": sum() does that.
const (
	TrafficHuman = "human"
	TrafficAI    = "ai"
	// TrafficOther is what a site total holds beyond human + ai.
	TrafficOther = "other"
)

// Walked is a kind walked page by page.
type Walked struct {
	Rows       mintlify.RowsKind // the endpoint walked
	Page, Site string
	// Unique is the family of de-duplicated site visitors, which do not add up; "" for page views.
	Unique string
	Walk   bool
}

// Views is the walked kind the backfill walks day by day and whose month walk the ledger records.
const Views = kind.PageViews

var walked = map[string]Walked{
	kind.PageViews: {Rows: mintlify.Views, Page: "mintlify_page_views", Site: "mintlify_site_page_views", Walk: true},
	kind.Visitors: {Rows: mintlify.Visitors, Page: "mintlify_page_visitors", Site: "mintlify_site_visitors",
		Unique: "mintlify_site_unique_visitors"},
}

// LookupWalked is the walked kind named name.
func LookupWalked(name string) (w Walked, ok bool) {
	w, ok = walked[name]
	return w, ok
}

// PathSamples emits each row's ai then human sample of family Page: the registry sorts by label values,
// and sorted input sorts fastest.
func (w Walked) PathSamples(rows []mintlify.PageViewRow, emit func(path, traffic string, value float64)) {
	for _, r := range rows {
		emit(r.Path, TrafficAI, r.AI)
		emit(r.Path, TrafficHuman, r.Human)
	}
}

// SiteSamples: human and ai of Site, then other (page views) or the de-duplicated total of Unique (visitors).
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
