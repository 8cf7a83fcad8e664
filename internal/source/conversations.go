package source

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Conversations: GET assistant, one row a conversation, cursor paging.
// A month can hold tens of thousands of rows, each with the whole answer,
// and past days do not change, so the month is kept day by day: each
// finished day is walked once and its counts kept (numbers, never the
// text); a refresh walks only today, and yesterday until ConversationsGrace
// after midnight UTC for conversations recorded late. The month to date
// is the sum of its days.
var _ = register(kind.Conversations, conversations{})

const (
	// ConversationsGrace is how long after its end (midnight UTC) a day
	// is still walked again on each refresh; its first walk after that
	// is its last.
	ConversationsGrace = 2 * time.Hour
	// ConversationsDayKeep bounds the categories and the pages a day
	// keeps (those with the most unanswered conversations): a month's
	// payload is at most 31 days × 2 × 100 names. It is at least the
	// largest top list (config.MaxTopN), so a month's top list is the
	// sum of the days' tops.
	ConversationsDayKeep = 100
	// ConversationsMaxDayPages bounds one day's walk: 200 pages of
	// mintlify.ConversationsPageSize rows, 200 000 conversations a day
	// (mintlify.MaxCursorWalkRows).
	ConversationsMaxDayPages = mintlify.MaxCursorWalkRows / mintlify.ConversationsPageSize
)

// ConversationsPayload is the month's days walked, by date, and the
// walk of a day that the budget stopped.
type ConversationsPayload struct {
	Days []ConversationsDay `json:"days"`
	// Walk is a day's walk the budget stopped, which the next fetch
	// resumes from its cursor; its counts are not in the samples yet.
	Walk *ConversationsWalk `json:"walk,omitempty"`
}

// ConversationsDay is what one UTC day's walk counted.
type ConversationsDay struct {
	Date string `json:"date"` // YYYY-MM-DD
	// Final: walked after the day's grace; never walked again.
	Final bool `json:"final"`
	// Rows is the conversations the walk read, which its next walk costs
	// (in pages) at least.
	Rows       int                 `json:"rows"`
	Answered   ConversationsByType `json:"answered"`
	Unanswered ConversationsByType `json:"unanswered"`
	// Categories and Pages are the day's unanswered conversations by
	// category and by the page they started on, most first, at most
	// ConversationsDayKeep each; the Cut flags say some were left out.
	Categories    []NamedCount `json:"categories"`
	Pages         []NamedCount `json:"pages"`
	CategoriesCut bool         `json:"categories_cut"`
	PagesCut      bool         `json:"pages_cut"`
	// Duplicates and OutOfRange are the rows the day's walk did not count
	// (see mintlify.Follow): rows read before in the walk (a page served
	// twice), and rows outside the day (an upstream that widened the
	// range). They are kept with the day for the operator
	// (docs/troubleshooting.md), never added to the counts.
	Duplicates int `json:"duplicates,omitempty"`
	OutOfRange int `json:"out_of_range,omitempty"`
}

// ConversationsWalk is a day's walk in progress: what it counted so far,
// the range it walks, and the cursor walk (the cursor of its next page,
// the ids read), whose keys are the walk's own ("cursor" as before).
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

// Cost is what the next refresh is expected to ask for: each day not
// final walked again, as many pages as its last walk and one more for the
// rows since, and one page for a new day. A first walk of the month
// reserves firstConversationsReserve; a walk that needs more than it got
// stops and goes on from the days it finished (see Fetch).
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

// firstConversationsReserve is what a month not walked yet reserves.
const firstConversationsReserve = 8

// Fetch walks the days of q.Range that are not final in q.Old, keeps the
// others, and drops days outside the range (those of an earlier month).
// Stopped by the budget, it returns with the error the days it finished
// and the walk it was in, which the next fetch resumes; failed on a
// refused cursor (mintlify.ErrCursorRefused), q.Old's days without a walk.
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
			if !errors.Is(err, mintlify.ErrSweepStopped) {
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

// Sealed reports whether the UTC day starting at day is over for good at
// now: its end plus ConversationsGrace is past. Only then is a day's walk
// final; a stored day marked final that is not sealed at now (a clock
// that ran ahead and was set back) is walked again.
func Sealed(day, now time.Time) bool {
	return !now.Before(day.AddDate(0, 0, 1).Add(ConversationsGrace))
}

// walkKeep bounds the categories and pages a walk in progress keeps.
const walkKeep = 10 * ConversationsDayKeep

// walkDay reads the pages of conversations in r one after the other, from
// w's cursor, counting into w. Done, w.Day holds the day's counts; stopped,
// w is where to resume.
func walkDay(ctx context.Context, q Query, r mintlify.DateRange, w *ConversationsWalk) error {
	d := &w.Day
	categories, pages := counts(d.Categories), counts(d.Pages)
	keep := func(n int) {
		var cut bool
		d.Categories, cut = top(categories, n)
		d.CategoriesCut = d.CategoriesCut || cut
		d.Pages, cut = top(pages, n)
		d.PagesCut = d.PagesCut || cut
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

// top is the n names of m with the largest counts (ties by name), and
// whether m had more.
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

func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Samples: the month's conversations by resolution and response type,
// and its top categories and pages of the unanswered (those the path
// filter keeps), with the flags that say the lists are cut.
func (conversations) Samples(pl Payload, s Settings) []Sample {
	p := pl.(*ConversationsPayload)
	var answered, unanswered ConversationsByType
	categories, pages := map[string]float64{}, map[string]float64{}
	var categoriesCut, pagesCut bool
	var duplicates, outOfRange float64
	for _, d := range p.Days {
		duplicates += float64(d.Duplicates)
		outOfRange += float64(d.OutOfRange)
		answered.Answer += d.Answered.Answer
		answered.Clarifying += d.Answered.Clarifying
		unanswered.Answer += d.Unanswered.Answer
		unanswered.Clarifying += d.Unanswered.Clarifying
		for _, c := range d.Categories {
			categories[c.Name] += c.Count
		}
		for _, pg := range d.Pages {
			if s.Keep == nil || s.Keep(pg.Name) {
				pages[pg.Name] += pg.Count
			}
		}
		categoriesCut = categoriesCut || d.CategoriesCut
		pagesCut = pagesCut || d.PagesCut
	}
	const total = "mintlify_assistant_conversations_total"
	out := []Sample{
		{Family: total, Labels: []Label{{"resolution", mintlify.Answered}, {"response_type", mintlify.ResponseAnswer}}, Value: answered.Answer},
		{Family: total, Labels: []Label{{"resolution", mintlify.Answered}, {"response_type", mintlify.ResponseClarifying}}, Value: answered.Clarifying},
		{Family: total, Labels: []Label{{"resolution", mintlify.Unanswered}, {"response_type", mintlify.ResponseAnswer}}, Value: unanswered.Answer},
		{Family: total, Labels: []Label{{"resolution", mintlify.Unanswered}, {"response_type", mintlify.ResponseClarifying}}, Value: unanswered.Clarifying},
	}
	out = append(out, droppedRows("mintlify_assistant_conversations_dropped_rows", duplicates, outOfRange)...)
	topCategories, cut := top(categories, s.TopN)
	out = append(out, Sample{Family: "mintlify_assistant_unanswered_truncated", Labels: []Label{{"list", "category"}}, Value: boolFloat(cut || categoriesCut)})
	for _, c := range topCategories {
		out = append(out, Sample{Family: "mintlify_assistant_unanswered_total", Labels: []Label{{"category", c.Name}}, Value: c.Count})
	}
	topPages, cut := top(pages, s.TopN)
	out = append(out, Sample{Family: "mintlify_assistant_unanswered_truncated", Labels: []Label{{"list", "path"}}, Value: boolFloat(cut || pagesCut)})
	for _, pg := range topPages {
		out = append(out, Sample{Family: "mintlify_assistant_unanswered_pages_total", Labels: []Label{{"path", pg.Name}}, Value: pg.Count})
	}
	return out
}
