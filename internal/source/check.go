package source

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// MaxStoredCount is far above any site's month and far below where a float64 stops counting by ones.
const MaxStoredCount = 1e12

func checkCount(what string, v float64) error {
	if !(v >= 0 && v <= MaxStoredCount) {
		return fmt.Errorf("%s: count %g out of range 0..%g", what, v, float64(MaxStoredCount))
	}
	return nil
}

func checkCounts(where string, counts map[string]float64) error {
	for name, v := range counts {
		if err := checkCount(where+name, v); err != nil {
			return err
		}
	}
	return nil
}

func checkNames(what string, l []NamedCount, max int, ok func(string) bool) error {
	if len(l) > max {
		return fmt.Errorf("%s: %d names, at most %d", what, len(l), max)
	}
	seen := make(map[string]bool, len(l))
	for _, c := range l {
		if seen[c.Name] || !ok(c.Name) {
			return fmt.Errorf("%s: name %q repeated or not as the API's are sanitised", what, mintlify.ScrubText(c.Name, ""))
		}
		seen[c.Name] = true
		if err := checkCount(what, c.Count); err != nil {
			return err
		}
	}
	return nil
}

func sanitisedCategory(c string) bool {
	s, _ := mintlify.Category(c)
	return s == c
}

func checkInts(what string, vs ...int) error {
	for _, v := range vs {
		if v < 0 || float64(v) > MaxStoredCount {
			return fmt.Errorf("%s: %d out of range", what, v)
		}
	}
	return nil
}

func checkWalk(w *mintlify.CursorWalk) error {
	if err := w.Check(); err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	return nil
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
	if err := checkInts(where+"rows", d.Rows, d.Duplicates, d.OutOfRange); err != nil {
		return err
	}
	err = checkCounts(where, map[string]float64{
		"answered": d.Answered.Answer, "answered clarifying": d.Answered.Clarifying,
		"unanswered": d.Unanswered.Answer, "unanswered clarifying": d.Unanswered.Clarifying})
	if err != nil {
		return err
	}
	if err := checkNames(where+"categories", d.Categories, keep, sanitisedCategory); err != nil {
		return err
	}
	if err := checkNames(where+"pages", d.Pages, keep, mintlify.PathLabelOK); err != nil {
		return err
	}
	unanswered := d.Unanswered.Answer + d.Unanswered.Clarifying
	switch {
	case d.Answered.Answer+d.Answered.Clarifying+unanswered > float64(d.Rows):
		return fmt.Errorf("%smore conversations counted than its %d rows", where, d.Rows)
	case sum(d.Categories) > unanswered || sum(d.Pages) > unanswered:
		return fmt.Errorf("%smore unanswered by category or page than the %g unanswered", where, unanswered)
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

func (feedbackBacklog) Check(pl Payload, now time.Time) error {
	p := pl.(*FeedbackBacklogPayload)
	if err := checkBacklog(&p.Backlog, now); err != nil {
		return err
	}
	if w := p.Walk; w != nil {
		if !w.From.Before(w.To) || w.To.After(now) {
			return errors.New("walk: its range is empty or ends after now")
		}
		if err := checkBacklog(&w.Counted, now); err != nil {
			return fmt.Errorf("walk: %w", err)
		}
		return checkWalk(&w.CursorWalk)
	}
	return nil
}

func checkBacklog(b *FeedbackBacklog, now time.Time) error {
	if err := checkInts("entries", b.Entries, b.Duplicates, b.OutOfRange); err != nil {
		return err
	}
	if b.Entries > MaxBacklogEntries {
		return fmt.Errorf("%d open entries, a walk reads at most %d", b.Entries, MaxBacklogEntries)
	}
	if b.Oldest.After(now) {
		return errors.New("the oldest open entry was left after now")
	}
	seen := map[[2]string]bool{}
	var open float64
	for _, o := range b.Open {
		pair := [2]string{o.Status, o.Source}
		if seen[pair] || !slices.Contains(openStatuses, o.Status) || !slices.Contains(mintlify.FeedbackSources, o.Source) {
			return fmt.Errorf("open entries of status %q, source %q: repeated or not documented", mintlify.ScrubText(o.Status, ""), mintlify.ScrubText(o.Source, ""))
		}
		seen[pair] = true
		if err := checkCount("open entries", o.Count); err != nil {
			return err
		}
		open += o.Count
	}
	if open > float64(b.Entries) {
		return fmt.Errorf("%g open entries counted, more than the %d read", open, b.Entries)
	}
	return nil
}

func (feedback) Check(pl Payload, _ time.Time) error {
	p := pl.(*FeedbackPayload)
	if len(p.Pages) > mintlify.MaxFeedbackLimit {
		return fmt.Errorf("%d pages, an answer has at most %d", len(p.Pages), mintlify.MaxFeedbackLimit)
	}
	for _, pg := range p.Pages {
		if mintlify.EscapeText(pg.Path) != pg.Path {
			return fmt.Errorf("path %q not as the client escapes paths", mintlify.ScrubText(pg.Path, ""))
		}
		if err := checkCounts("page: ", map[string]float64{"thumbs up": pg.ThumbsUp, "thumbs down": pg.ThumbsDown, "code snippet": pg.Code}); err != nil {
			return err
		}
	}
	return nil
}

// Check: terms are sanitised when they become samples (SanitizeQuery), as the API's are.
func (searches) Check(pl Payload, _ time.Time) error {
	p := pl.(*SearchesPayload)
	if len(p.Terms) > mintlify.MaxSearchesLimit {
		return fmt.Errorf("%d terms, an answer has at most %d", len(p.Terms), mintlify.MaxSearchesLimit)
	}
	if err := checkCount("total", p.Total); err != nil {
		return err
	}
	for _, r := range p.Terms {
		if err := checkCounts("term: ", map[string]float64{"hits": r.Hits, "click-through ratio": r.CTR}); err != nil {
			return err
		}
	}
	return nil
}

func (assistant) Check(pl Payload, _ time.Time) error {
	p := pl.(*AssistantPayload)
	return checkCounts("", map[string]float64{"web": p.Web, "api": p.API, "other": p.Other})
}
