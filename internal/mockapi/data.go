package mockapi

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// Site is a synthetic documentation site: every number served is a pure function of Site and
// the range, so tests compute the expected answer without HTTP.
type Site struct {
	Seed  int64 // varies names and counts between sites
	Paths int   // number of distinct page paths
	// OtherTraffic makes the site total exceed human+ai, as the API does not promise the sum.
	OtherTraffic bool
	// Order: the API documents none, so clients must not rely on one.
	Order RowOrder
	// ConversationsPerHour: 0 derives it from Paths, negative means none; ~18% are unanswered.
	ConversationsPerHour int
	// FeedbackPerDay: 0 derives it from Paths, negative means none; a quarter stay pending.
	FeedbackPerDay int
	// Live counts only the passed part of the hour under way, so counts grow by the minute (live.go).
	Live bool
	// VisitorText is planted in all visitor-written text, for tests that none of it leaks.
	VisitorText string
	// Gap is a documentation gap that a merged pull request closes (gap.go).
	Gap *Gap

	fixedAt int64 // Unix ms the gap was closed, 0 not (yet); set per request (withFix)
}

// RowOrder is the order per-path rows are served in.
type RowOrder int

const (
	BusiestFirst RowOrder = iota
	// QuietestFirst puts the busiest on the last page.
	QuietestFirst
	// Shuffled draws a different order for every range from the site's seed.
	Shuffled
)

// Counts are site-wide totals (the "totals" object).
type Counts struct {
	Human int64 `json:"human"`
	AI    int64 `json:"ai"`
	Total int64 `json:"total"`
}

// Row is one per-path entry of views or visitors.
type Row struct {
	Path  string `json:"path"`
	Human int64  `json:"human"`
	AI    int64  `json:"ai"`
	Total int64  `json:"total"`
}

// FeedbackRow is one entry of feedback/by-page.
type FeedbackRow struct {
	Path       string `json:"path"`
	ThumbsUp   int64  `json:"thumbsUp"`
	ThumbsDown int64  `json:"thumbsDown"`
	Code       int64  `json:"code"`
	Total      int64  `json:"total"`
}

// SearchRow's TopClickedPage is nil when no result was clicked.
type SearchRow struct {
	SearchQuery    string  `json:"searchQuery"`
	Hits           int64   `json:"hits"`
	CTR            float64 `json:"ctr"`
	TopClickedPage *string `json:"topClickedPage"`
	LastSearchedAt string  `json:"lastSearchedAt"`
}

// CallerStats is the assistant/caller-stats answer.
type CallerStats struct {
	Web   int64 `json:"web"`
	API   int64 `json:"api"`
	Other int64 `json:"other"`
	Total int64 `json:"total"`
}

// Hash tags keep the independent pseudo-random streams apart.
const (
	tagName uint64 = iota + 1
	tagPop
	tagHour
	tagOther
	tagTerm
	tagTermHour
)

// mix64 is the SplitMix64 finaliser: cheap, reproducible and random-looking.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func hash3(a, b, c uint64) uint64 {
	return mix64(mix64(mix64(a+0x9e3779b97f4a7c15)^b) ^ c)
}

var (
	sections = []string{"getting-started", "api-reference", "guides", "integrations",
		"components", "deploy", "settings", "changelog", "sdk", "advanced"}
	words = []string{"overview", "quickstart", "authentication", "webhooks", "errors",
		"pagination", "rate-limits", "custom-domains", "analytics", "themes", "navigation",
		"search", "openapi", "mdx", "snippets", "redirects", "versioning", "localization",
		"assistant", "feedback"}
)

// PathName is /docs/<section>/<page>-<i>; the index keeps paths unique whatever the seed.
func (s Site) PathName(i int) string {
	h := hash3(uint64(s.Seed), uint64(i), tagName)
	sec := sections[h%uint64(len(sections))]
	page := words[(h>>8)%uint64(len(words))]
	n := strconv.Itoa(i)
	if (h>>16)%4 == 0 {
		sub := words[(h>>24)%uint64(len(words))]
		return "/docs/" + sec + "/" + sub + "/" + page + "-" + n
	}
	return "/docs/" + sec + "/" + page + "-" + n
}

// popularity is heavy-tailed so a few pages get most of the traffic, like a real site.
func (s Site) popularity(i int) uint64 {
	return 1 + 2000/(1+hash3(uint64(s.Seed), uint64(i), tagPop)%400)
}

// HourViews is path i's human and AI views in the hour starting at hour*3600.
func (s Site) HourViews(i int, hour int64) (human, ai int64) {
	p := s.popularity(i)
	base := hash3(uint64(s.Seed), uint64(i), tagHour)
	x := mix64(base ^ uint64(hour)*0x9e3779b97f4a7c15)
	return int64((x & 0xffffffff) % (p/8 + 1)), int64((x >> 32) % (p/40 + 1))
}

// HourOther is an hour's site-wide views that are neither human nor AI.
func (s Site) HourOther(hour int64) int64 {
	if !s.OtherTraffic {
		return 0
	}
	return int64(hash3(uint64(s.Seed), uint64(hour), tagOther) % 4)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// HourRange is the hour buckets whose start lies in [from, to): one begun before from is not
// counted even if it overlaps.
func HourRange(from, to time.Time) (first, end int64) {
	ceilHour := func(t time.Time) int64 {
		sec := t.Unix()
		if t.Nanosecond() > 0 {
			sec++
		}
		return -floorDiv(-sec, 3600)
	}
	first = ceilHour(from)
	return first, max(ceilHour(to), first)
}

// computed is cached because a client pages through the same range dozens of times.
type computed struct {
	viewTotals    Counts
	views         []Row // served order
	visitorTotals Counts
	visitors      []Row
	feedback      []FeedbackRow
	searches      []SearchRow
	totalSearches int64
	callers       CallerStats
}

type cacheKey struct {
	site Site
	span span
}

// dataCache bounds memory: a 10 000-path range is about 2 MB of rows.
var dataCache = newFIFOCache[cacheKey, *computed](16)

func (s Site) compute(from, to time.Time) *computed {
	sp := s.spanOf(from, to)
	return dataCache.get(cacheKey{s, sp}, func() *computed { return s.build(sp) })
}

// byTotalThenPath is deliberately not alphabetical so clients cannot rely on order.
func byTotalThenPath(a, b Row) int {
	return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(a.Path, b.Path))
}

func (s Site) reorder(rows []Row, first int64) {
	switch s.Order {
	case QuietestFirst:
		slices.Reverse(rows)
	case Shuffled:
		for i := len(rows) - 1; i > 0; i-- {
			j := int(hash3(uint64(s.Seed), uint64(first), uint64(i)) % uint64(i+1))
			rows[i], rows[j] = rows[j], rows[i]
		}
	}
}

func (s Site) build(sp span) *computed {
	n := max(s.Paths, 0)
	c := &computed{views: make([]Row, n), visitors: make([]Row, n)}
	d0, d1 := sp.wholeDays()
	sums := make([]dayViews, n)
	for d := d0; d < d1; d++ {
		for i, v := range s.daySums(d, n) {
			sums[i].human += v.human
			sums[i].ai += v.ai
		}
	}
	var vh, va int64
	for i := range n {
		p := s.popularity(i)
		hm, am := p/8+1, p/40+1
		base := hash3(uint64(s.Seed), uint64(i), tagHour)
		human, ai := sums[i].human, sums[i].ai
		for h := sp.first; h < sp.end; h++ {
			if h == d0*24 && d1 > d0 {
				h = d1*24 - 1 // the whole days are in sums
				continue
			}
			x := mix64(base ^ uint64(h)*0x9e3779b97f4a7c15)
			human += sp.part(int64((x&0xffffffff)%hm), h, x)
			ai += sp.part(int64((x>>32)%am), h, ^x)
		}
		path := s.PathName(i)
		c.views[i] = Row{Path: path, Human: human, AI: ai, Total: human + ai}
		c.viewTotals.Human += human
		c.viewTotals.AI += ai
		// Unique visitors do not add up over time or pages: derive them from views.
		h2, a2 := (3*human+3)/4, (ai+1)/2
		c.visitors[i] = Row{Path: path, Human: h2, AI: a2, Total: h2 + a2 - min(h2, a2)/4}
		vh += h2
		va += a2
		if fb := (FeedbackRow{Path: path, ThumbsUp: human / 40, ThumbsDown: human / 150, Code: (human + ai) / 300}); fb.ThumbsUp+fb.ThumbsDown+fb.Code > 0 {
			fb.Total = fb.ThumbsUp + fb.ThumbsDown + fb.Code
			c.feedback = append(c.feedback, fb)
		}
	}
	c.viewTotals.Total = c.viewTotals.Human + c.viewTotals.AI
	for h := sp.first; h < sp.end; h++ {
		c.viewTotals.Total += sp.part(s.HourOther(h), h, uint64(h))
	}
	c.visitorTotals = Counts{Human: vh * 9 / 10, AI: va * 9 / 10}
	c.visitorTotals.Total = c.visitorTotals.Human + c.visitorTotals.AI - min(c.visitorTotals.Human, c.visitorTotals.AI)/3
	slices.SortFunc(c.views, byTotalThenPath)
	slices.SortFunc(c.visitors, byTotalThenPath)
	s.reorder(c.views, sp.first)
	s.reorder(c.visitors, sp.first)
	slices.SortFunc(c.feedback, func(a, b FeedbackRow) int {
		return cmp.Or(cmp.Compare(b.Total, a.Total), cmp.Compare(a.Path, b.Path))
	})
	c.callers.Web = c.viewTotals.Human / 25
	c.callers.API = c.viewTotals.AI / 12
	c.callers.Other = (c.callers.Web + c.callers.API) / 20
	c.callers.Total = c.callers.Web + c.callers.API + c.callers.Other
	c.searches, c.totalSearches = s.buildSearches(sp)
	return c
}

// Views has a row for every path, zero views included, so "N paths" is exact.
func (s Site) Views(from, to time.Time) (Counts, []Row) {
	c := s.compute(from, to)
	return c.viewTotals, slices.Clone(c.views)
}

// Visitors is like Views, de-duplicated: total <= human+ai.
func (s Site) Visitors(from, to time.Time) (Counts, []Row) {
	c := s.compute(from, to)
	return c.visitorTotals, slices.Clone(c.visitors)
}

// Feedback omits pages without feedback, as an aggregate over entries would.
func (s Site) Feedback(from, to time.Time) []FeedbackRow {
	return slices.Clone(s.compute(from, to).feedback)
}

// Searches returns the terms with hits, by hits then query, and the sum of all hits.
func (s Site) Searches(from, to time.Time) ([]SearchRow, int64) {
	c := s.compute(from, to)
	return slices.Clone(c.searches), c.totalSearches
}

func (s Site) CallerStats(from, to time.Time) CallerStats {
	return s.compute(from, to).callers
}

func (s Site) searchTerms() int {
	if s.Paths <= 0 {
		return 0
	}
	return min(20+s.Paths/10, 1000)
}

// SearchTerm returns the stable text of query t; unique per t.
func SearchTerm(t int) string {
	n := len(words)
	a, b := t%n, (t/n)%n
	q := words[a] + " " + words[(a+b+1)%n]
	if t >= n*n {
		q += " " + strconv.Itoa(t/(n*n))
	}
	return q
}

func (s Site) buildSearches(sp span) ([]SearchRow, int64) {
	var rows []SearchRow
	var total int64
	for t := range s.searchTerms() {
		th := hash3(uint64(s.Seed), uint64(t), tagTerm)
		hmax := 1 + (1+200/(1+th%100))/20
		var hits int64
		last := int64(-1)
		var lastX uint64
		for h := sp.first; h < sp.end; h++ {
			x := hash3(th, uint64(h), tagTermHour)
			if k := sp.part(int64(x%(hmax+1)), h, x); k > 0 {
				hits += k
				last, lastX = h, x
			}
		}
		if hits == 0 {
			continue
		}
		total += hits
		clicks := hits * int64(th>>8%80) / 100
		r := SearchRow{SearchQuery: SearchTerm(t), Hits: hits, CTR: float64(clicks*1000/hits) / 1000}
		if clicks > 0 && s.Paths > 0 {
			p := s.PathName(int((th >> 20) % uint64(s.Paths)))
			r.TopClickedPage = &p
		}
		at := sp.at(last, int64(lastX>>40%3600))
		r.LastSearchedAt = at.Format("2006-01-02T15:04:05.000Z")
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b SearchRow) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(a.SearchQuery, b.SearchQuery))
	})
	return rows, total
}
