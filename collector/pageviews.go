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
	Fetched: walked{rows: mintlify.Views, page: "mintlify_page_views", site: "mintlify_site_page_views"}, Walk: true,
}
