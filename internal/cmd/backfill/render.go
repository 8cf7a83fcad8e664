package backfill

// Writing the journal's answers as the counter series.

import (
	"fmt"
	"io"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// renderBackfill writes what the journal holds, as progress has put it
// together, as the counter series: the site totals and the paths each
// day's walk kept, and the other counters.
func renderBackfill(w io.Writer, plan *backfillPlan, progress *backfillProgress) error {
	pv, _ := kind.Lookup(kind.PageViews)
	fb, _ := kind.Lookup(kind.Feedback)
	se, _ := kind.Lookup(kind.Searches)
	as, _ := kind.Lookup(kind.Assistant)
	site := counterFamily(pv.Family("mintlify_site_page_views_total"))
	page := counterFamily(pv.Family("mintlify_page_views_total"))
	feedback := counterFamily(fb.Family("mintlify_page_feedback_total"))
	searches := counterFamily(se.Family("mintlify_searches_total"))
	assistant := counterFamily(as.Family("mintlify_assistant_queries_total"))
	with := func(pairs ...labelPair) []labelPair { return append(pairs, plan.labels...) }
	for _, t := range progress.tasks {
		id, d := t.project, t.day
		label := plan.label(id)
		walk := progress.walks[t]
		if !progress.viewsDone(t) {
			return fmt.Errorf("no data for project %s, day %s", id, d.Format(mintlify.DayLayout))
		}
		end := d.AddDate(0, 0, 1)
		tot := walk.Totals
		site.add(with(labelPair{"project", label}, labelPair{"traffic", trafficHuman}), end, tot.Human)
		site.add(with(labelPair{"project", label}, labelPair{"traffic", trafficAI}), end, tot.AI)
		if other := tot.Total - tot.Human - tot.AI; other > 0 {
			site.add(with(labelPair{"project", label}, labelPair{"traffic", trafficOther}), end, other)
		}
		if plan.paths > 0 {
			for _, r := range walk.Rows {
				page.add(with(labelPair{"path", r.Path}, labelPair{"project", label}, labelPair{"traffic", trafficHuman}), end, r.Human)
				page.add(with(labelPair{"path", r.Path}, labelPair{"project", label}, labelPair{"traffic", trafficAI}), end, r.AI)
			}
		}
		for _, k := range plan.extra[id] {
			jp, ok := progress.extra[taskKind{t, k}]
			if !ok {
				return fmt.Errorf("no %s data for project %s, day %s", k, id, d.Format(mintlify.DayLayout))
			}
			switch {
			case k == kind.Feedback:
				seen := map[string]bool{}
				for _, r := range jp.Feedback {
					if seen[r.Path] || !plan.keep(id, r.Path) {
						continue
					}
					seen[r.Path] = true
					for _, kv := range []struct {
						kind string
						v    float64
					}{{"thumbs_up", r.ThumbsUp}, {"thumbs_down", r.ThumbsDown}, {"code_snippet", r.Code}} {
						feedback.add(with(labelPair{"kind", kv.kind}, labelPair{"path", r.Path}, labelPair{"project", label}), end, kv.v)
					}
				}
			case k == kind.Searches && jp.Searches != nil:
				searches.add(with(labelPair{"project", label}), end, *jp.Searches)
			case k == kind.Assistant && jp.Assistant != nil:
				a := jp.Assistant
				assistant.add(with(labelPair{"caller", "web"}, labelPair{"project", label}), end, a.Web)
				assistant.add(with(labelPair{"caller", "api"}, labelPair{"project", label}), end, a.API)
				assistant.add(with(labelPair{"caller", "other"}, labelPair{"project", label}), end, a.Other)
			}
		}
	}
	return renderOpenMetrics(w, site, page, feedback, searches, assistant)
}

// counterFamily is the backfill's family of the exporter's counter f:
// the same name and HELP, saying where the values come from.
func counterFamily(f kind.Family) *omFamily {
	return newFamily(strings.TrimSuffix(f.Name, "_total"), f.Help+" Written by mintlify_exporter backfill: the value at the end of each day.")
}
