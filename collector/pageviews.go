package collector

import (
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Page views: walked page by page (walked), resumed across budget grants.
const PageViews = "pageviews"

var pageViewsRow = spec.Collector{
	Name: PageViews, Weight: 4, Summary: "page views per path and site totals (human, ai)", Default: true,
	Endpoint: "views", Windows: spec.MonthAndWindows, Paging: spec.OffsetPages,
	Families: []Family{
		{Name: "mintlify_page_views_total", Counter: true, Labels: []string{"path", "project", "traffic"},
			Help: "Views of one documentation page since the start of the current UTC calendar month (the created timestamp), by traffic (human or ai). Starts again from 0 on the 1st; use increase() or rate()."},
		{Name: "mintlify_site_page_views_total", Counter: true, Labels: []string{"project", "traffic"},
			Help: "Views of the whole site since the start of the current UTC calendar month, from the upstream site totals, by traffic (human, ai, and other when the total exceeds human + ai)." + monthCounter},
		{Name: "mintlify_page_views", Labels: []string{"path", "project", "traffic", "window"},
			Help: "Views of one documentation page in the rolling window, by traffic (human or ai)."},
		{Name: "mintlify_site_page_views", Labels: []string{"project", "traffic", "window"},
			Help: "Views of the whole site in the rolling window, from the upstream site totals, by traffic (human, ai, and other when the total exceeds human + ai)."},
	},
	Bookkeeping: []Family{
		{Name: "mintlify_page_views_paths", Labels: walkLabels, Help: "Paths exported as mintlify_page_views series after filters and max_paths."},
		{Name: "mintlify_page_views_paths_dropped", Labels: walkLabels,
			Help: "Paths the upstream reported but the exporter did not export, because of include/exclude filters, max_paths, or a path too long to be a label."},
		{Name: "mintlify_page_views_sweep_truncated", Labels: walkLabels,
			Help: "1 if the last page-view sweep stopped at max_pages while the upstream still had more rows, else 0."},
		{Name: "mintlify_page_views_sweep_duplicate_rows", Labels: walkLabels,
			Help: "Rows of the last sweep whose path had already come on an earlier page (rows move between pages while views change); each path is exported once."},
		{Name: "mintlify_page_views_sweep_requests", Labels: walkLabels, Help: "Upstream requests the last page-view sweep of this window made."},
		{Name: "mintlify_page_views_walk_repeated", Labels: walkLabels,
			Help: "1 if the last page-view walk ended at a page that brought no path the walk had not already seen: the upstream repeated itself, and following it would have spent the budget on nothing."},
		{Name: "mintlify_page_views_walk_pages_remaining", Labels: walkLabels, Live: true,
			Help: "Pages the walk in progress still expects to read (0 when none is in progress); a site larger than one hour's budget is walked over several hours."},
	},
	Fetched: pageViewsWalk{walked{rows: mintlify.Views, page: "mintlify_page_views", site: "mintlify_site_page_views"}}, Walk: true,
}

var walkLabels = []string{"project", "window"}

type pageViewsWalk struct{ walked }

// Bookkeeping is how the shown walk went, and what the walk under way has left; none before a first page.
func (pageViewsWalk) Bookkeeping(pl Payload, s Settings) []Sample {
	p := pl.(*WalkPayload)
	data := p.Shown()
	if data == nil {
		return nil
	}
	exported := len(Exported(data, s))
	return []Sample{
		{Family: "mintlify_page_views_paths", Value: float64(exported)},
		{Family: "mintlify_page_views_paths_dropped", Value: float64(data.Dropped + data.Merged + len(data.Rows) - exported)},
		{Family: "mintlify_page_views_sweep_truncated", Value: boolFloat(data.Truncated || p.Data == nil)},
		{Family: "mintlify_page_views_sweep_duplicate_rows", Value: float64(data.Duplicates)},
		{Family: "mintlify_page_views_sweep_requests", Value: float64(data.Requests)},
		{Family: "mintlify_page_views_walk_repeated", Value: boolFloat(data.Repeated)},
		{Family: "mintlify_page_views_walk_pages_remaining", Value: float64(p.Remaining())},
	}
}
