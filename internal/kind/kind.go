// Package kind is the one table of the exporter's analytics collector
// kinds: for each, its name (the --collector.NAME flag, the configuration's
// `collectors` entry, the `collector` label), whether it is on by default,
// the API endpoint it reads, which windows it counts, and the metric
// families it exports with their HELP.
//
// Config validation, the --collector.* flags, the refresh engine, the
// backfill, the docs checks and the simulated API all read this table.
// A kind's code (its request, its stored payload, its samples) is one file
// in internal/source; docs/development.md says how to add one. The
// package imports nothing of the project. The API client does not use it
// (it knows the endpoints itself), so the simulated API, which does, still
// shares no code with the client.
package kind

import (
	"slices"
	"strings"
	"time"
)

// The kinds' names.
const (
	PageViews = "pageviews"
	Visitors  = "visitors"
	Feedback  = "feedback"
	Searches  = "searches"
	Assistant = "assistant"
	// Conversations: assistant conversations, answered or not.
	Conversations = "conversations"
	// FeedbackBacklog: reader feedback nobody has handled yet.
	FeedbackBacklog = "feedback-backlog"
)

// Windows is what a kind counts over.
type Windows int

const (
	// MonthAndWindows: month-to-date counters (which backfill can write
	// for past days), plus a gauge for each configured rolling window.
	MonthAndWindows Windows = iota
	// WindowsOnly: gauges of the rolling windows alone (24h when none is
	// configured). Unique visitors do not add up over days, so they have
	// no counter.
	WindowsOnly
	// MonthOnly: month-to-date counters alone, for a kind whose rolling
	// windows would cost too much; its samples name the counter families.
	MonthOnly
	// Snapshot: gauges of the state now (one fetch a refresh, over the
	// range the kind chooses, such as a look-back), without a window
	// label.
	Snapshot
)

// Paging is how a kind reads its endpoint for a window.
type Paging int

const (
	// OnePage: one request a window (or a snapshot).
	OnePage Paging = iota
	// OffsetPages: a walk of offset pages (page views, visitors: the
	// client's Walk).
	OffsetPages
	// CursorPages: a walk of cursor pages, through the client's one
	// cursor walk (mintlify.Follow), which de-duplicates rows by id,
	// checks their range and ends a looping walk. Every kind marked so is
	// run against each of the simulator's cursor faults by
	// TestCursorKindsUnderFaults (internal/source): a new one is covered
	// without a test of its own.
	CursorPages
)

// HasMonth reports whether the kind counts the month to date (and the
// backfill can write its counters for past days).
func (w Windows) HasMonth() bool { return w == MonthAndWindows || w == MonthOnly }

// Family is a metric family a kind exports: its name as /metrics shows it
// (a counter's ends in _total), its HELP without the exporter's note on
// its cache, and its labels.
type Family struct {
	Name    string
	Help    string
	Labels  []string
	Counter bool // a month-to-date counter; else a gauge
	// Month: a gauge also shown for the month-to-date range, as
	// window="month" (a flag about the month's answer, not a count).
	Month bool
}

// Kind is one row of the table.
type Kind struct {
	Name    string
	Summary string // what it exports, for --collector.NAME and the docs
	Default bool   // on when neither the flags nor the configuration say
	// Weight is its default share of a key's budget against the other
	// kinds enabled under the key (the configuration's collector_weights).
	Weight   float64
	Endpoint string // the API path under /v1/analytics/{projectId}/
	Windows  Windows
	Paging   Paging
	Families []Family
	// The kind's own settings, each with its default here (zero: the
	// kind has no such setting). Their flag and configuration key follow
	// from the kind's name (Flag, Key), unless the row names the key 0.1.0
	// gave it, which stays.
	//
	// TopN is the length of the kind's top lists: --collector.NAME.top-n,
	// global.collector_top_n.NAME (or TopNKey).
	TopN    int
	TopNKey string
	// LookBack is how far back a Snapshot looks: --collector.NAME.look-back,
	// global.collector_look_back.NAME (or LookBackKey).
	LookBack    time.Duration
	LookBackKey string
}

// The settings a row can have, as their flags and keys spell them.
const (
	TopNSetting     = "top-n"
	LookBackSetting = "look-back"
)

// Flag is the command-line flag of the kind's setting (TopNSetting,
// LookBackSetting), without its dashes.
func (k Kind) Flag(setting string) string { return "collector." + k.Name + "." + setting }

// Key is where the configuration file sets the kind's setting, under
// global: the key the row names, else collector_SETTING.NAME
// ("collector_top_n.conversations").
func (k Kind) Key(setting string) string {
	own := map[string]string{TopNSetting: k.TopNKey, LookBackSetting: k.LookBackKey}[setting]
	if own != "" {
		return own
	}
	return "collector_" + strings.ReplaceAll(setting, "-", "_") + "." + k.Name
}

// Help texts the families share.
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

// Names are the kinds' names, in the table's order.
func Names() []string {
	names := make([]string, len(All))
	for i, k := range All {
		names[i] = k.Name
	}
	return names
}

// Lookup returns the kind named name.
func Lookup(name string) (Kind, bool) {
	for _, k := range All {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Defaults are the names of the kinds on by default.
func Defaults() []string {
	var names []string
	for _, k := range where(func(k Kind) bool { return k.Default }) {
		names = append(names, k.Name)
	}
	return names
}

// where is the kinds for which keep is true, in the table's order.
func where(keep func(Kind) bool) []Kind {
	var ks []Kind
	for _, k := range All {
		if keep(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

// Family returns the family of kind named name; it panics when the table
// has none, which only a mistake in the code that asks can cause.
func (k Kind) Family(name string) Family {
	for _, f := range k.Families {
		if f.Name == name {
			return f
		}
	}
	panic("kind " + k.Name + " has no family " + name)
}

// Counters are the kind's month-to-date counter families.
func (k Kind) Counters() []Family {
	return slices.DeleteFunc(slices.Clone(k.Families), func(f Family) bool { return !f.Counter })
}

// MonthOf is the family that the samples of gauge family name (shown for
// a rolling window) become for the month-to-date range: its counter,
// name_total, or the gauge itself when it is shown for the month too
// (Month); a counter's name is that counter. ok is false when the month shows none of it (a top-N of a
// month is no sum of its days').
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
