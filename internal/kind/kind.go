// Package kind is the one table of the analytics collector kinds: name, default, endpoint,
// windows and metric families. Config, flags, refresh, backfill, docs checks and the simulated
// API read it; the API client does not, so the simulator shares no code with the client.
package kind

import (
	"slices"
	"strings"
	"time"
)

const (
	PageViews       = "pageviews"
	Visitors        = "visitors"
	Feedback        = "feedback"
	Searches        = "searches"
	Assistant       = "assistant"
	Conversations   = "conversations"
	FeedbackBacklog = "feedback-backlog"
)

// Windows is what a kind counts over.
type Windows int

const (
	MonthAndWindows Windows = iota
	// WindowsOnly has no month counter: unique visitors do not add up over days.
	WindowsOnly
	// MonthOnly is for a kind whose rolling windows would cost too much.
	MonthOnly
	// Snapshot is gauges of the state now, without a window label.
	Snapshot
)

// Paging is how a kind reads its endpoint for a window.
type Paging int

const (
	OnePage Paging = iota
	OffsetPages
	// CursorPages kinds are each run against the simulator's cursor faults by TestCursorKindsUnderFaults.
	CursorPages
)

// HasMonth reports whether backfill can write the kind's counters for past days.
func (w Windows) HasMonth() bool { return w == MonthAndWindows || w == MonthOnly }

// Family is a metric family a kind exports; Help omits the exporter's note on its cache.
type Family struct {
	Name    string
	Help    string
	Labels  []string
	Counter bool // a month-to-date counter; else a gauge
	Month   bool // a gauge also shown as window="month"
}

type Kind struct {
	Name     string
	Summary  string // for --collector.NAME and the docs
	Default  bool
	Weight   float64 // default share of a key's budget (collector_weights)
	Endpoint string  // the API path under /v1/analytics/{projectId}/
	Windows  Windows
	Paging   Paging
	Families []Family
	// Own settings with their defaults (zero: none); a *Key keeps the key 0.1.0 gave it.
	TopN        int
	TopNKey     string
	LookBack    time.Duration // how far back a Snapshot looks
	LookBackKey string
}

const (
	TopNSetting     = "top-n"
	LookBackSetting = "look-back"
)

func (k Kind) Flag(setting string) string { return "collector." + k.Name + "." + setting }

// Key is the setting's key under global: the row's own, else collector_SETTING.NAME.
func (k Kind) Key(setting string) string {
	own := map[string]string{TopNSetting: k.TopNKey, LookBackSetting: k.LookBackKey}[setting]
	if own != "" {
		return own
	}
	return "collector_" + strings.ReplaceAll(setting, "-", "_") + "." + k.Name
}

const (
	monthCounter = " Starts again from 0 on the 1st."
)

// All is the table, in the order the kinds are documented.
var All = []Kind{
	{
		Name: PageViews, Weight: 4, Summary: "page views per path and site totals (human, ai)", Default: true,
		Endpoint: "views", Windows: MonthAndWindows, Paging: OffsetPages,
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
	},
	{
		Name: Visitors, Weight: 2, Summary: "unique visitors per path and site",
		Endpoint: "visitors", Windows: WindowsOnly, Paging: OffsetPages,
		Families: []Family{
			{Name: "mintlify_page_visitors", Labels: []string{"path", "project", "traffic", "window"},
				Help: "Unique visitors of one documentation page in the rolling window, by traffic (human or ai)."},
			{Name: "mintlify_site_visitors", Labels: []string{"project", "traffic", "window"},
				Help: "Unique visitors of the whole site in the rolling window, by traffic (human or ai). Visitors seen as both count in each, so the two do not add up to mintlify_site_unique_visitors."},
			{Name: "mintlify_site_unique_visitors", Labels: []string{"project", "window"},
				Help: "Unique visitors of the whole site in the rolling window, de-duplicated across traffic types by the upstream (approximate)."},
		},
	},
	{
		Name: Feedback, Weight: 1, Summary: "thumbs up/down and code-snippet feedback per page",
		Endpoint: "feedback/by-page", Windows: MonthAndWindows,
		Families: []Family{
			{Name: "mintlify_page_feedback_total", Counter: true, Labels: []string{"kind", "path", "project"},
				Help: "Feedback entries on one page since the start of the current UTC calendar month, by kind: thumbs_up, thumbs_down, code_snippet. Only the 100 pages with the most feedback this month are listed (see mintlify_page_feedback_truncated{window=\"month\"})." + monthCounter},
			{Name: "mintlify_page_feedback", Labels: []string{"kind", "path", "project", "window"},
				Help: "Feedback entries on one page in the rolling window, by kind: thumbs_up, thumbs_down (contextual feedback) and code_snippet (feedback on a code block)."},
			{Name: "mintlify_page_feedback_truncated", Month: true, Labels: []string{"project", "window"},
				Help: "1 if the upstream had feedback on more pages than the 100 one request returns (the endpoint documents no paging)."},
		},
	},
	{
		Name: Searches, Weight: 1, Summary: "top search terms and their click-through ratio",
		Endpoint: "searches", Windows: MonthAndWindows, TopN: 10, TopNKey: "search_top_n",
		Families: []Family{
			{Name: "mintlify_searches_total", Counter: true, Labels: []string{"project"},
				Help: "Search events on the site since the start of the current UTC calendar month (all terms)." + monthCounter},
			{Name: "mintlify_searches", Labels: []string{"project", "window"},
				Help: "Search events on the site in the rolling window (all terms, not only the exported ones)."},
			{Name: "mintlify_search_hits", Labels: []string{"project", "query", "window"},
				Help: "Times a search term was searched in the rolling window; only the top search_top_n terms by hits are exported, sanitised and cut to 64 characters."},
			{Name: "mintlify_search_click_through_ratio", Labels: []string{"project", "query", "window"},
				Help: "Share of a search term's searches that led to a click on a result (0 to 1), for the exported top terms."},
		},
	},
	{
		Name: Assistant, Weight: 1, Summary: "assistant queries by caller (web, api, other)",
		Endpoint: "assistant/caller-stats", Windows: MonthAndWindows,
		Families: []Family{
			{Name: "mintlify_assistant_queries_total", Counter: true, Labels: []string{"caller", "project"},
				Help: "Assistant queries since the start of the current UTC calendar month, by caller: web, api, other." + monthCounter},
			{Name: "mintlify_assistant_queries", Labels: []string{"caller", "project", "window"},
				Help: "Assistant queries in the rolling window by caller: web (the docs site), api, other (integrations, SDKs)."},
		},
	},
	{
		Name: Conversations, Weight: 1, TopN: 20, Summary: "assistant conversations answered or not, and the categories and pages of the unanswered",
		Endpoint: "assistant", Windows: MonthOnly, Paging: CursorPages,
		Families: []Family{
			{Name: "mintlify_assistant_conversations_total", Counter: true, Labels: []string{"project", "resolution", "response_type"},
				Help: "Assistant conversations since the start of the current UTC calendar month, by resolution (answered, or unanswered when the assistant marked the question as not covered by the documentation) and response_type (answer, clarifying_question)." + monthCounter},
			{Name: "mintlify_assistant_unanswered_total", Counter: true, Labels: []string{"category", "project"},
				Help: "Unanswered assistant conversations since the start of the current UTC calendar month by the category the API assigned (uncategorized when none); only the month's top categories (collector_top_n) are listed, see mintlify_assistant_unanswered_truncated." + monthCounter},
			{Name: "mintlify_assistant_unanswered_pages_total", Counter: true, Labels: []string{"path", "project"},
				Help: "Unanswered assistant conversations since the start of the current UTC calendar month by the page they started on (none without a page); only the month's top pages (collector_top_n) are listed, see mintlify_assistant_unanswered_truncated." + monthCounter},
			{Name: "mintlify_assistant_conversations_dropped_rows", Month: true, Labels: []string{"project", "reason", "window"},
				Help: "Rows the month's walks of conversations read but did not count, by reason: duplicate (an id read before in the same walk: a page served twice) or out_of_range (a timestamp outside the day asked for: an upstream that widened the range). Not 0 means the upstream misbehaved; the counters stay exact."},
			{Name: "mintlify_assistant_unanswered_truncated", Month: true, Labels: []string{"list", "project", "window"},
				Help: "1 if the month's unanswered conversations had more categories (list=\"category\") or pages (list=\"path\") than are listed, so the listed ones do not add up to all of them."},
		},
	},
	{
		Name: FeedbackBacklog, Weight: 1, Summary: "reader feedback still open (pending, in progress) by status and source, and when the oldest was left",
		Endpoint: "feedback", Windows: Snapshot, Paging: CursorPages, LookBack: 90 * 24 * time.Hour, LookBackKey: "feedback_look_back",
		Families: []Family{
			{Name: "mintlify_feedback_open", Labels: []string{"project", "source", "status"},
				Help: "Feedback entries still open (status pending or in_progress) created in the look-back (feedback_look_back, default 90 days), by source: code_snippet, contextual, agent, thumbs_only."},
			{Name: "mintlify_feedback_open_dropped_rows", Labels: []string{"project", "reason"},
				Help: "Entries the last walk of the open feedback read but did not count, by reason: duplicate (an id read before in the same walk: a page served twice) or out_of_range (a createdAt outside the look-back asked for: an upstream that widened the range). Not 0 means the upstream misbehaved; the counts stay exact."},
			{Name: "mintlify_feedback_oldest_open_timestamp_seconds", Labels: []string{"project"},
				Help: "Unix time at which the oldest feedback entry still open (of the look-back) was created; absent when none is open."},
		},
	},
}

func Names() []string {
	names := make([]string, len(All))
	for i, k := range All {
		names[i] = k.Name
	}
	return names
}

func Lookup(name string) (Kind, bool) {
	for _, k := range All {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

func Defaults() []string {
	var names []string
	for _, k := range where(func(k Kind) bool { return k.Default }) {
		names = append(names, k.Name)
	}
	return names
}

func where(keep func(Kind) bool) []Kind {
	var ks []Kind
	for _, k := range All {
		if keep(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// Family panics on a name the table lacks: only a mistake in the caller does that.
func (k Kind) Family(name string) Family {
	for _, f := range k.Families {
		if f.Name == name {
			return f
		}
	}
	panic("kind " + k.Name + " has no family " + name)
}

func (k Kind) Counters() []Family {
	return slices.DeleteFunc(slices.Clone(k.Families), func(f Family) bool { return !f.Counter })
}

// MonthOf is the month-to-date family of window family name: its _total counter, or the gauge
// itself if Month; ok is false for a top-N (a month's is no sum of its days').
func (k Kind) MonthOf(name string) (f Family, ok bool) {
	for _, f := range k.Families {
		if f.Counter && f.Name == name {
			return f, true // a sample of a MonthOnly kind names its counter
		}
	}
	for _, f := range k.Families {
		if f.Counter && f.Name == name+"_total" {
			return f, true
		}
	}
	for _, f := range k.Families {
		if f.Name == name && f.Month {
			return f, true
		}
	}
	return Family{}, false
}
