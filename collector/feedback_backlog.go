package collector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Feedback backlog: GET feedback?status=pending,in_progress over the look-back on each refresh; only open
// entries are asked for, so the cost follows the backlog. Comments and contacts are not read.
const FeedbackBacklog = "feedback-backlog"

var feedbackBacklogRow = spec.Collector{
	Name: FeedbackBacklog, Weight: 1, Summary: "reader feedback still open (pending, in progress) by status and source, and when the oldest was left",
	Endpoint: "feedback", Windows: spec.Snapshot, Paging: spec.CursorPages, LookBack: 90 * 24 * time.Hour, LookBackKey: "feedback_look_back",
	Families: []Family{
		{Name: "mintlify_feedback_open", Labels: []string{"project", "source", "status"},
			Help: "Feedback entries still open (status pending or in_progress) created in the look-back (feedback_look_back, default 90 days), by source: code_snippet, contextual, agent, thumbs_only."},
		{Name: "mintlify_feedback_open_dropped_rows", Labels: []string{"project", "reason"},
			Help: "Entries the last walk of the open feedback read but did not count, by reason: duplicate (an id read before in the same walk: a page served twice) or out_of_range (a createdAt outside the look-back asked for: an upstream that widened the range). Not 0 means the upstream misbehaved; the counts stay exact."},
		{Name: "mintlify_feedback_oldest_open_timestamp_seconds", Labels: []string{"project"},
			Help: "Unix time at which the oldest feedback entry still open (of the look-back) was created; absent when none is open."},
	},
	Fetched: feedbackBacklog{},
}

const maxBacklogPages = 1000

// MaxBacklogEntries is the most open entries one walk counts.
const MaxBacklogEntries = maxBacklogPages * mintlify.MaxFeedbackEntriesLimit

// FeedbackBacklogPayload is the last complete count and the walk the budget stopped.
type FeedbackBacklogPayload struct {
	Backlog OpenFeedback         `json:"backlog"`
	Walk    *FeedbackBacklogWalk `json:"walk,omitempty"`
}

// OpenFeedback is the open entries of a look-back, counted.
type OpenFeedback struct {
	Open []FeedbackOpen `json:"open"`
	// Oldest is zero when none is open (or none has a createdAt).
	Oldest time.Time `json:"oldest"`
	// Entries is what the next walk costs, in pages.
	Entries int `json:"entries"`
	// Duplicates and OutOfRange (see mintlify.Follow) are kept for the operator, never counted as open.
	Duplicates int `json:"duplicates,omitempty"`
	OutOfRange int `json:"out_of_range,omitempty"`
}

// FeedbackOpen is a count of open entries of one status and source.
type FeedbackOpen struct {
	Status string  `json:"status"`
	Source string  `json:"source"`
	Count  float64 `json:"count"`
}

// FeedbackBacklogWalk is a walk in progress; its cursor walk's keys are its own ("cursor" as before).
type FeedbackBacklogWalk struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	mintlify.CursorWalk
	Counted OpenFeedback `json:"counted"`
}

var openStatuses = []string{mintlify.FeedbackPending, mintlify.FeedbackInProgress}

type feedbackBacklog struct{}

func (feedbackBacklog) Empty() Payload { return &FeedbackBacklogPayload{} }

func (feedbackBacklog) Cost(pl Payload) int {
	p, _ := pl.(*FeedbackBacklogPayload)
	if p == nil {
		return 1
	}
	return p.Backlog.Entries/mintlify.MaxFeedbackEntriesLimit + 1
}

// Fetch, stopped by the budget, returns the last complete count with the walk so far, beside the error.
func (feedbackBacklog) Fetch(ctx context.Context, q Query) (Payload, error) {
	out := &FeedbackBacklogPayload{}
	var w *FeedbackBacklogWalk
	if old, ok := q.Old.(*FeedbackBacklogPayload); ok && old != nil {
		out.Backlog = old.Backlog
		if o := old.Walk; o != nil {
			w = &FeedbackBacklogWalk{From: o.From, To: o.To, CursorWalk: o.CursorWalk.Clone(), Counted: o.Counted}
		}
	}
	if w == nil {
		to := q.Now.UTC().Truncate(time.Minute)
		w = &FeedbackBacklogWalk{From: to.Add(-q.Settings.LookBack), To: to}
	}
	open := map[[2]string]float64{}
	for _, c := range w.Counted.Open {
		open[[2]string{c.Status, c.Source}] += c.Count
	}
	f := mintlify.FeedbackFilter{Range: mintlify.DateRange{From: w.From, To: w.To}, Statuses: openStatuses}
	read := func(cursor string) (*mintlify.CursorPage[mintlify.FeedbackEntry], error) {
		page, err := q.Client.FeedbackEntries(ctx, q.Project, f, mintlify.MaxFeedbackEntriesLimit, cursor)
		if err != nil {
			return nil, err
		}
		return &page.CursorPage, nil
	}
	restart := func() {
		w.Counted = OpenFeedback{}
		clear(open)
	}
	err := mintlify.FollowPages(&w.CursorWalk, f.Range, maxBacklogPages, read, restart, func(e mintlify.FeedbackEntry) {
		if e.Status != mintlify.FeedbackPending && e.Status != mintlify.FeedbackInProgress {
			return // asked for open ones only
		}
		w.Counted.Entries++
		open[[2]string{e.Status, e.Source}]++
		if !e.Created.IsZero() && (w.Counted.Oldest.IsZero() || e.Created.Before(w.Counted.Oldest)) {
			w.Counted.Oldest = e.Created
		}
	})
	if errors.Is(err, mintlify.ErrWalkStopped) {
		w.Counted.Open = openList(open)
		out.Walk = w
		return out, err
	}
	if errors.Is(err, mintlify.ErrCursorRefused) {
		return out, fmt.Errorf("feedback backlog: %w", err) // the walk dropped: the next starts afresh
	}
	if err != nil {
		return nil, fmt.Errorf("feedback backlog: %w", err)
	}
	w.Counted.Duplicates, w.Counted.OutOfRange = w.Duplicates, w.OutOfRange
	w.Counted.Open = openList(open)
	return &FeedbackBacklogPayload{Backlog: w.Counted}, nil
}

func openList(m map[[2]string]float64) []FeedbackOpen {
	var out []FeedbackOpen
	for _, status := range openStatuses {
		for _, source := range mintlify.FeedbackSources {
			out = append(out, FeedbackOpen{Status: status, Source: source, Count: m[[2]string{status, source}]})
		}
	}
	return out
}

func (feedbackBacklog) Samples(pl Payload, _ Settings) []Sample {
	p := pl.(*FeedbackBacklogPayload)
	var out []Sample
	for _, c := range p.Backlog.Open {
		out = append(out, Sample{Family: "mintlify_feedback_open", Labels: []Label{{Name: "source", Value: c.Source}, {Name: "status", Value: c.Status}}, Value: c.Count})
	}
	out = append(out, droppedRows("mintlify_feedback_open_dropped_rows", float64(p.Backlog.Duplicates), float64(p.Backlog.OutOfRange))...)
	if !p.Backlog.Oldest.IsZero() {
		out = append(out, Sample{Family: "mintlify_feedback_oldest_open_timestamp_seconds", Value: float64(p.Backlog.Oldest.UnixNano()) / 1e9})
	}
	return out
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

func checkBacklog(b *OpenFeedback, now time.Time) error {
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
