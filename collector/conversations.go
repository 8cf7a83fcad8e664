package collector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Conversations: GET assistant, cursor paging, one row a conversation with its whole answer. Past days do not
// change, so each is walked until ConversationsGrace after its midnight UTC (late rows), then its counts are kept.
const Conversations = "conversations"

var conversationsRow = spec.Collector{
	Name: Conversations, Weight: 1, TopN: 20, Summary: "assistant conversations answered or not, and the categories and pages of the unanswered",
	Endpoint: "assistant", Windows: spec.MonthOnly, Paging: spec.CursorPages,
	Families: []Family{
		{Name: "mintlify_assistant_conversations_total", Counter: true, Labels: []string{"project", "resolution", "response_type"},
			Help: "Assistant conversations since the start of the current UTC calendar month, by resolution (answered, or unanswered when the assistant marked the question as not covered by the documentation) and response_type (answer, clarifying_question)." + monthCounter},
		{Name: "mintlify_assistant_unanswered_total", Counter: true, Labels: []string{"category", "project"},
			Help: "Unanswered assistant conversations since the start of the current UTC calendar month by the category the API assigned (uncategorized when none); only the month's top categories (collector_top_n) are listed, see mintlify_assistant_unanswered_truncated." + monthCounter},
		{Name: "mintlify_assistant_unanswered_pages_total", Counter: true, Labels: []string{"path", "project"},
			Help: "Unanswered assistant conversations since the start of the current UTC calendar month by the page they started on (none without a page); only the month's top pages (collector_top_n) are listed, see mintlify_assistant_unanswered_truncated." + monthCounter},
		{Name: "mintlify_assistant_answers_without_sources_total", Counter: true, Labels: []string{"project"},
			Help: "Answered assistant conversations (response_type answer) since the start of the current UTC calendar month that cite no page: the documentation may not back them." + monthCounter},
		{Name: "mintlify_assistant_cited_pages_total", Counter: true, Labels: []string{"path", "project"},
			Help: "Assistant conversations since the start of the current UTC calendar month that cite the page (the path of an http(s) source URL; once a conversation); only the month's top pages (collector_top_n) are listed, see mintlify_assistant_pages_truncated." + monthCounter},
		{Name: "mintlify_assistant_page_conversations_total", Counter: true, Labels: []string{"path", "project"},
			Help: "Assistant conversations since the start of the current UTC calendar month by the page they started on; only the month's top pages (collector_top_n) and the pages of mintlify_assistant_unanswered_pages_total are listed, see mintlify_assistant_pages_truncated." + monthCounter},
		{Name: "mintlify_assistant_conversations_dropped_rows", Month: true, Labels: []string{"project", "reason", "window"},
			Help: "Rows the month's walks of conversations read but did not count, by reason: duplicate (an id read before in the same walk: a page served twice) or out_of_range (a timestamp outside the day asked for: an upstream that widened the range), and URLs not counted: page_url (a pageUrl with no usable path), source_url (a source URL not http(s) or with no usable path). Duplicate or out_of_range not 0 means the upstream misbehaved; the counters stay exact."},
		{Name: "mintlify_assistant_pages_truncated", Month: true, Labels: []string{"list", "project", "window"},
			Help: "1 if the month's conversations cited (list=\"cited\") or started on (list=\"started\") more pages than are listed."},
		{Name: "mintlify_assistant_unanswered_truncated", Month: true, Labels: []string{"list", "project", "window"},
			Help: "1 if the month's unanswered conversations had more categories (list=\"category\") or pages (list=\"path\") than are listed, so the listed ones do not add up to all of them."},
	},
	Fetched: conversations{},
}

const (
	// ConversationsGrace is how long after midnight UTC a day is still walked again on each refresh.
	ConversationsGrace = 2 * time.Hour
	// ConversationsDayKeep bounds a day's categories and pages (a month: 31×2×100 names); at least
	// config.MaxTopN, so a month's top list is the sum of the days' tops.
	ConversationsDayKeep = 100
	// ConversationsMaxDayPages bounds one day's walk to mintlify.MaxCursorWalkRows rows.
	ConversationsMaxDayPages = mintlify.MaxCursorWalkRows / mintlify.ConversationsPageSize
)

// ConversationsPayload is the month's days walked, by date, and a day's walk the budget stopped.
type ConversationsPayload struct {
	Days []ConversationsDay `json:"days"`
	Walk *ConversationsWalk `json:"walk,omitempty"`
}

// ConversationsDay is what one UTC day's walk counted.
type ConversationsDay struct {
	Date string `json:"date"` // YYYY-MM-DD
	// Final: walked after the day's grace; never walked again.
	Final bool `json:"final"`
	// Rows is what the day's next walk costs, in pages, at least.
	Rows          int                 `json:"rows"`
	Answered      ConversationsByType `json:"answered"`
	Unanswered    ConversationsByType `json:"unanswered"`
	Categories    []NamedCount        `json:"categories"`
	Pages         []NamedCount        `json:"pages"`
	CategoriesCut bool                `json:"categories_cut"`
	PagesCut      bool                `json:"pages_cut"`
	// Duplicates and OutOfRange (see mintlify.Follow) are kept for the operator, never added to the counts.
	Duplicates int `json:"duplicates,omitempty"`
	OutOfRange int `json:"out_of_range,omitempty"`
	// Absent from files before 0.2.0: their days count none.
	WithoutSources float64      `json:"without_sources,omitempty"`
	Cited          []NamedCount `json:"cited,omitempty"`
	Started        []NamedCount `json:"started,omitempty"`
	CitedCut       bool         `json:"cited_cut,omitempty"`
	StartedCut     bool         `json:"started_cut,omitempty"`
	DroppedPages   int          `json:"dropped_page_urls,omitempty"`
	DroppedSources int          `json:"dropped_source_urls,omitempty"`
}

// ConversationsWalk is a day's walk in progress; its cursor walk's keys are its own ("cursor" as before).
type ConversationsWalk struct {
	Day ConversationsDay `json:"day"`
	To  time.Time        `json:"to"` // the end of the range walked
	mintlify.CursorWalk
}

// ConversationsByType counts conversations by response type.
type ConversationsByType struct {
	Answer     float64 `json:"answer"`
	Clarifying float64 `json:"clarifying_question"`
}

// NamedCount is a count under a name (a category, a path).
type NamedCount struct {
	Name  string  `json:"name"`
	Count float64 `json:"count"`
}

type conversations struct{}

func (conversations) Empty() Payload { return &ConversationsPayload{} }

// Cost: each day not final walked again, its last walk's pages plus one; a month's first walk reserves
// firstConversationsReserve and, when it needs more, goes on next time from the days it finished.
func (conversations) Cost(pl Payload) int {
	p, _ := pl.(*ConversationsPayload)
	if p == nil || len(p.Days) == 0 {
		return firstConversationsReserve
	}
	n := 1
	for _, d := range p.Days {
		if !d.Final {
			n += d.Rows/mintlify.ConversationsPageSize + 1
		}
	}
	if p.Walk != nil {
		n++
	}
	return n
}

const firstConversationsReserve = 8

// Fetch keeps q.Old's final days and walks the rest; stopped by the budget it returns the finished days
// and the walk in progress; on mintlify.ErrCursorRefused, q.Old's days without a walk.
func (conversations) Fetch(ctx context.Context, q Query) (Payload, error) {
	old := map[string]ConversationsDay{}
	var resume *ConversationsWalk
	var oldDays []ConversationsDay
	if p, ok := q.Old.(*ConversationsPayload); ok && p != nil {
		oldDays = p.Days
		for _, d := range p.Days {
			old[d.Date] = d
		}
		resume = p.Walk
	}
	first, last := day(q.Range.From), day(q.Range.To.Add(-time.Nanosecond))
	out := &ConversationsPayload{}
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		date := d.Format(mintlify.DayLayout)
		if od, ok := old[date]; ok && od.Final && Sealed(d, q.Now) {
			out.Days = append(out.Days, od)
			continue
		}
		r := mintlify.DateRange{From: d, To: d.AddDate(0, 0, 1), Days: true}
		if !q.Range.Days && r.To.After(q.Range.To) {
			r = mintlify.DateRange{From: d, To: q.Range.To} // the API refused a dateTo in the future
		}
		w := &ConversationsWalk{Day: ConversationsDay{Date: date}, To: r.To}
		if resume != nil && resume.Day.Date == date && resume.To.Equal(r.To) {
			w = &ConversationsWalk{Day: resume.Day, To: resume.To, CursorWalk: resume.CursorWalk.Clone()}
		}
		if err := walkDay(ctx, q, r, w); err != nil {
			if errors.Is(err, mintlify.ErrCursorRefused) {
				return &ConversationsPayload{Days: oldDays}, err
			}
			if !errors.Is(err, mintlify.ErrWalkStopped) {
				return nil, err
			}
			out.Walk = w
			for ; !d.After(last); d = d.AddDate(0, 0, 1) {
				if od, ok := old[d.Format(mintlify.DayLayout)]; ok {
					out.Days = append(out.Days, od)
				}
			}
			return out, err
		}
		w.Day.Final = r.Days && Sealed(d, q.Now)
		out.Days = append(out.Days, w.Day)
	}
	return out, nil
}

// Sealed reports whether day's end plus ConversationsGrace is past at now; a stored final day not sealed
// (a clock that ran ahead and was set back) is walked again.
func Sealed(day, now time.Time) bool {
	return !now.Before(day.AddDate(0, 0, 1).Add(ConversationsGrace))
}

const walkKeep = 10 * ConversationsDayKeep

func walkDay(ctx context.Context, q Query, r mintlify.DateRange, w *ConversationsWalk) error {
	d := &w.Day
	categories, pages, cited, started := counts(d.Categories), counts(d.Pages), counts(d.Cited), counts(d.Started)
	keep := func(n int) {
		var cut bool
		d.Categories, cut = top(categories, n)
		d.CategoriesCut = d.CategoriesCut || cut
		d.Pages, cut = top(pages, n)
		d.PagesCut = d.PagesCut || cut
		d.Cited, cut = top(cited, n)
		d.CitedCut = d.CitedCut || cut
		d.Started, cut = top(started, n)
		d.StartedCut = d.StartedCut || cut
		d.Started = withNames(d.Started, started, d.Pages)
	}
	read := func(cursor string) (*mintlify.CursorPage[mintlify.Conversation], error) {
		page, err := q.Client.Conversations(ctx, q.Project, r, mintlify.ConversationsPageSize, cursor)
		if err != nil {
			return nil, err
		}
		return &page.CursorPage, nil
	}
	restart := func() {
		*d = ConversationsDay{Date: d.Date}
		clear(categories)
		clear(pages)
		clear(cited)
		clear(started)
	}
	err := mintlify.FollowPages(&w.CursorWalk, r, ConversationsMaxDayPages, read, restart, func(c mintlify.Conversation) {
		d.Rows++
		by := &d.Answered
		if c.Resolution == mintlify.Unanswered {
			by = &d.Unanswered
			categories[c.Category]++
			if c.Path != "" {
				pages[c.Path]++
			}
		}
		if c.ResponseType == mintlify.ResponseClarifying {
			by.Clarifying++
		} else {
			by.Answer++
			if c.Resolution == mintlify.Answered && c.Sources == 0 {
				d.WithoutSources++
			}
		}
		if c.Path != "" {
			started[c.Path]++
		}
		if c.PathDropped {
			d.DroppedPages++
		}
		d.DroppedSources += c.DroppedSources
		for _, p := range c.Cited {
			cited[p]++
		}
	})
	if err != nil {
		keep(walkKeep)
		return fmt.Errorf("conversations of %s: %w", d.Date, err)
	}
	d.Duplicates, d.OutOfRange = w.Duplicates, w.OutOfRange
	keep(ConversationsDayKeep)
	return nil
}

func counts(l []NamedCount) map[string]float64 {
	m := make(map[string]float64, len(l))
	for _, c := range l {
		m[c.Name] += c.Count
	}
	return m
}

func top(m map[string]float64, n int) ([]NamedCount, bool) {
	out := make([]NamedCount, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, NamedCount{Name: name, Count: m[name]})
	}
	slices.SortStableFunc(out, func(a, b NamedCount) int { return cmp.Compare(b.Count, a.Count) })
	if len(out) > n {
		return out[:n], true
	}
	return out, false
}

// withNames is l with each of names it lacks, counted as in m: the pages by conversations list every
// unanswered page listed, so that its share is one division.
func withNames(l []NamedCount, m map[string]float64, names []NamedCount) []NamedCount {
	for _, n := range names {
		if !slices.ContainsFunc(l, func(c NamedCount) bool { return c.Name == n.Name }) {
			l = append(l, NamedCount{Name: n.Name, Count: m[n.Name]})
		}
	}
	return l
}

func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func (conversations) Samples(pl Payload, s Settings) []Sample {
	p := pl.(*ConversationsPayload)
	var answered, unanswered ConversationsByType
	categories, pages, cited, started := map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}
	var categoriesCut, pagesCut, citedCut, startedCut bool
	var duplicates, outOfRange, droppedPages, droppedSources, withoutSources float64
	add := func(m map[string]float64, l []NamedCount) {
		for _, pg := range l {
			if s.Keep == nil || s.Keep(pg.Name) {
				m[pg.Name] += pg.Count
			}
		}
	}
	for _, d := range p.Days {
		duplicates += float64(d.Duplicates)
		outOfRange += float64(d.OutOfRange)
		droppedPages += float64(d.DroppedPages)
		droppedSources += float64(d.DroppedSources)
		withoutSources += d.WithoutSources
		add(cited, d.Cited)
		add(started, d.Started)
		citedCut = citedCut || d.CitedCut
		startedCut = startedCut || d.StartedCut
		answered.Answer += d.Answered.Answer
		answered.Clarifying += d.Answered.Clarifying
		unanswered.Answer += d.Unanswered.Answer
		unanswered.Clarifying += d.Unanswered.Clarifying
		for _, c := range d.Categories {
			categories[c.Name] += c.Count
		}
		add(pages, d.Pages)
		categoriesCut = categoriesCut || d.CategoriesCut
		pagesCut = pagesCut || d.PagesCut
	}
	const total = "mintlify_assistant_conversations_total"
	out := []Sample{
		{Family: total, Labels: []Label{{Name: "resolution", Value: mintlify.Answered}, {Name: "response_type", Value: mintlify.ResponseAnswer}}, Value: answered.Answer},
		{Family: total, Labels: []Label{{Name: "resolution", Value: mintlify.Answered}, {Name: "response_type", Value: mintlify.ResponseClarifying}}, Value: answered.Clarifying},
		{Family: total, Labels: []Label{{Name: "resolution", Value: mintlify.Unanswered}, {Name: "response_type", Value: mintlify.ResponseAnswer}}, Value: unanswered.Answer},
		{Family: total, Labels: []Label{{Name: "resolution", Value: mintlify.Unanswered}, {Name: "response_type", Value: mintlify.ResponseClarifying}}, Value: unanswered.Clarifying},
	}
	out = append(out, Sample{Family: "mintlify_assistant_answers_without_sources_total", Value: withoutSources})
	const dropped = "mintlify_assistant_conversations_dropped_rows"
	out = append(out, droppedRows(dropped, duplicates, outOfRange)...)
	out = append(out, Sample{Family: dropped, Labels: []Label{{Name: "reason", Value: "page_url"}}, Value: droppedPages},
		Sample{Family: dropped, Labels: []Label{{Name: "reason", Value: "source_url"}}, Value: droppedSources})
	topCategories, cut := top(categories, s.TopN)
	out = append(out, Sample{Family: "mintlify_assistant_unanswered_truncated", Labels: []Label{{Name: "list", Value: "category"}}, Value: boolFloat(cut || categoriesCut)})
	for _, c := range topCategories {
		out = append(out, Sample{Family: "mintlify_assistant_unanswered_total", Labels: []Label{{Name: "category", Value: c.Name}}, Value: c.Count})
	}
	topPages, cut := top(pages, s.TopN)
	out = append(out, Sample{Family: "mintlify_assistant_unanswered_truncated", Labels: []Label{{Name: "list", Value: "path"}}, Value: boolFloat(cut || pagesCut)})
	for _, pg := range topPages {
		out = append(out, Sample{Family: "mintlify_assistant_unanswered_pages_total", Labels: []Label{{Name: "path", Value: pg.Name}}, Value: pg.Count})
	}
	for _, l := range []struct {
		list, family string
		m            map[string]float64
		cut          bool
	}{{"cited", "mintlify_assistant_cited_pages_total", cited, citedCut}, {"started", "mintlify_assistant_page_conversations_total", started, startedCut}} {
		pages, cut := top(l.m, s.TopN)
		if l.list == "started" {
			pages = withNames(pages, l.m, topPages)
		}
		out = append(out, Sample{Family: "mintlify_assistant_pages_truncated", Labels: []Label{{Name: "list", Value: l.list}}, Value: boolFloat(cut || l.cut)})
		for _, pg := range pages {
			out = append(out, Sample{Family: l.family, Labels: []Label{{Name: "path", Value: pg.Name}}, Value: pg.Count})
		}
	}
	return out
}

// Check: a day is final only if it is sealed at now (Sealed).
func (conversations) Check(pl Payload, now time.Time) error {
	p := pl.(*ConversationsPayload)
	if len(p.Days) > 31 {
		return fmt.Errorf("%d days, a month has at most 31", len(p.Days))
	}
	seen := map[string]bool{}
	month := ""
	for _, d := range p.Days {
		if seen[d.Date] {
			return fmt.Errorf("day %q given twice", mintlify.ScrubText(d.Date, ""))
		}
		seen[d.Date] = true
		if err := checkDay(&d, now, ConversationsDayKeep); err != nil {
			return err
		}
		if err := sameMonth(&month, d.Date); err != nil {
			return err
		}
	}
	if w := p.Walk; w != nil {
		if w.Day.Final {
			return errors.New("a walk in progress marked final")
		}
		if err := checkDay(&w.Day, now, walkKeep); err != nil {
			return fmt.Errorf("walk: %w", err)
		}
		if err := sameMonth(&month, w.Day.Date); err != nil {
			return fmt.Errorf("walk: %w", err)
		}
		return checkWalk(&w.CursorWalk)
	}
	return nil
}

func sameMonth(month *string, date string) error {
	if *month == "" {
		*month = date[:7]
	}
	if date[:7] != *month {
		return fmt.Errorf("day %s: outside the payload's month %s", date, *month)
	}
	return nil
}

func checkDay(d *ConversationsDay, now time.Time, keep int) error {
	t, err := time.Parse(mintlify.DayLayout, d.Date)
	switch {
	case err != nil:
		return fmt.Errorf("day %q: not a date YYYY-MM-DD", mintlify.ScrubText(d.Date, ""))
	case t.After(day(now)):
		return fmt.Errorf("day %s: after today (%s)", d.Date, now.UTC().Format(mintlify.DayLayout))
	case d.Final && !Sealed(t, now):
		return fmt.Errorf("day %s: marked final before its end and %s of grace are past", d.Date, ConversationsGrace)
	}
	where := "day " + d.Date + ": "
	if err := checkInts(where+"rows", d.Rows, d.Duplicates, d.OutOfRange, d.DroppedPages, d.DroppedSources); err != nil {
		return err
	}
	err = checkCounts(where, map[string]float64{
		"answered": d.Answered.Answer, "answered clarifying": d.Answered.Clarifying,
		"unanswered": d.Unanswered.Answer, "unanswered clarifying": d.Unanswered.Clarifying, "without sources": d.WithoutSources})
	if err != nil {
		return err
	}
	if err := checkDayNames(where, d, keep); err != nil {
		return err
	}
	unanswered := d.Unanswered.Answer + d.Unanswered.Clarifying
	switch {
	case d.Answered.Answer+d.Answered.Clarifying+unanswered > float64(d.Rows):
		return fmt.Errorf("%smore conversations counted than its %d rows", where, d.Rows)
	case sum(d.Categories) > unanswered || sum(d.Pages) > unanswered:
		return fmt.Errorf("%smore unanswered by category or page than the %g unanswered", where, unanswered)
	case d.WithoutSources > d.Answered.Answer:
		return fmt.Errorf("%smore answers without sources than the %g answers", where, d.Answered.Answer)
	case sum(d.Started) > float64(d.Rows) || slices.ContainsFunc(d.Cited, func(c NamedCount) bool { return c.Count > float64(d.Rows) }):
		return fmt.Errorf("%smore conversations by page, or citing a page, than its %d rows", where, d.Rows)
	}
	started := counts(d.Started)
	for _, pg := range d.Pages {
		if n, ok := started[pg.Name]; ok && !d.StartedCut && pg.Count > n {
			return fmt.Errorf("%spage %s: more unanswered than started on it", where, pg.Name)
		}
	}
	return nil
}

func checkDayNames(where string, d *ConversationsDay, keep int) error {
	if err := checkNames(where+"categories", d.Categories, keep, sanitisedCategory); err != nil {
		return err
	}
	for what, l := range map[string][]NamedCount{"pages": d.Pages, "cited": d.Cited, "started": d.Started} {
		bound := keep
		if what == "started" {
			bound *= 2 // the top pages and the unanswered ones (withNames)
		}
		if err := checkNames(where+what, l, bound, mintlify.PathLabelOK); err != nil {
			return err
		}
	}
	return nil
}

func sum(l []NamedCount) float64 {
	var n float64
	for _, c := range l {
		n += c.Count
	}
	return n
}
