package backfill

// Writing the journal's answers as the counter series.

import (
	"fmt"
	"io"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// renderBackfill writes what the journal holds, as progress has put it
// together, as the counter series: the site totals and the paths each
// day's walk kept, and the other counters.
func renderBackfill(w io.Writer, plan *backfillPlan, progress *backfillProgress) error {
	site := newFamily("mintlify_site_page_views", "Views of the whole site since the start of the UTC calendar month, by traffic (human, ai, and other when the total exceeds human + ai), at the end of each day; written by mintlify_exporter backfill.")
	page := newFamily("mintlify_page_views", "Views of one documentation page since the start of the UTC calendar month, by traffic (human or ai), at the end of each day; written by mintlify_exporter backfill.")
	feedback := newFamily("mintlify_page_feedback", "Feedback entries on one page since the start of the UTC calendar month, by kind: thumbs_up, thumbs_down, code_snippet; only the 100 pages with the most feedback that month-to-date, at the end of each day; written by mintlify_exporter backfill.")
	searches := newFamily("mintlify_searches", "Search events on the site since the start of the UTC calendar month (all terms), at the end of each day; written by mintlify_exporter backfill.")
	assistant := newFamily("mintlify_assistant_queries", "Assistant queries since the start of the UTC calendar month, by caller: web, api, other, at the end of each day; written by mintlify_exporter backfill.")
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
		for _, kind := range plan.extra[id] {
			jp, ok := progress.extra[taskKind{t, kind}]
			if !ok {
				return fmt.Errorf("no %s data for project %s, day %s", kind, id, d.Format(mintlify.DayLayout))
			}
			switch {
			case kind == kindFeedback:
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
			case kind == kindSearches && jp.Searches != nil:
				searches.add(with(labelPair{"project", label}), end, *jp.Searches)
			case kind == kindAssistant && jp.Assistant != nil:
				a := jp.Assistant
				assistant.add(with(labelPair{"caller", "web"}, labelPair{"project", label}), end, a.Web)
				assistant.add(with(labelPair{"caller", "api"}, labelPair{"project", label}), end, a.API)
				assistant.add(with(labelPair{"caller", "other"}, labelPair{"project", label}), end, a.Other)
			}
		}
	}
	return renderOpenMetrics(w, site, page, feedback, searches, assistant)
}
