package collector

import (
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Visitors: walked page by page as page views are; unique visitors do not add up over days, so no month.
const Visitors = "visitors"

var visitorsRow = spec.Collector{
	Name: Visitors, Weight: 2, Summary: "unique visitors per path and site",
	Endpoint: "visitors", Windows: spec.WindowsOnly, Paging: spec.OffsetPages,
	Families: []Family{
		{Name: "mintlify_page_visitors", Labels: []string{"path", "project", "traffic", "window"},
			Help: "Unique visitors of one documentation page in the rolling window, by traffic (human or ai)."},
		{Name: "mintlify_site_visitors", Labels: []string{"project", "traffic", "window"},
			Help: "Unique visitors of the whole site in the rolling window, by traffic (human or ai). Visitors seen as both count in each, so the two do not add up to mintlify_site_unique_visitors."},
		{Name: "mintlify_site_unique_visitors", Labels: []string{"project", "window"},
			Help: "Unique visitors of the whole site in the rolling window, de-duplicated across traffic types by the upstream (approximate)."},
	},
	Fetched: walked{rows: mintlify.Visitors, page: "mintlify_page_visitors", site: "mintlify_site_visitors",
		unique: "mintlify_site_unique_visitors"},
}
