package mintlify

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Feedback entries: GET .../feedback, cursor paging. As for conversations, a page is decoded as a stream and
// the reader's comment, contact and code are never decoded; the body is bounded, and a walk reads a page at a time.
const (
	// MaxFeedbackEntriesLimit is the largest limit documented, and the page size asked for.
	MaxFeedbackEntriesLimit = 100
	// FeedbackEntriesMaxBodyBytes bounds one page's body (some 20 KiB a row).
	FeedbackEntriesMaxBodyBytes = 2 << 20
)

// The review statuses of a feedback entry.
const (
	FeedbackPending    = "pending"
	FeedbackInProgress = "in_progress"
	FeedbackResolved   = "resolved"
	FeedbackDismissed  = "dismissed"
)

// FeedbackStatuses and FeedbackSources are the documented values.
var (
	FeedbackStatuses = []string{FeedbackPending, FeedbackInProgress, FeedbackResolved, FeedbackDismissed}
	FeedbackSources  = []string{"code_snippet", "contextual", "agent", "thumbs_only"}
)

// FeedbackEntry is what the exporter counts of one entry; its text is not read.
type FeedbackEntry struct {
	ID     string // the entry's id, which the walk de-duplicates by
	Status string // one of FeedbackStatuses
	Source string // one of FeedbackSources
	Path   string
	// Created is when the entry was left; zero when the API sends null.
	Created time.Time
}

// FeedbackEntriesPage is one answer of the endpoint.
type FeedbackEntriesPage struct {
	CursorPage[FeedbackEntry]
	DroppedPaths int
}

func (e FeedbackEntry) walkKey() (string, time.Time) { return e.ID, e.Created }

// FeedbackFilter: entries created in Range, with one of Statuses (all when empty), from Source (all when "").
type FeedbackFilter struct {
	Range    DateRange
	Statuses []string
	Source   string
}

type wireFeedbackEntry struct {
	ID        *string          `json:"id"`
	Path      *string          `json:"path"`
	CreatedAt nullable[string] `json:"createdAt"`
	Source    *string          `json:"source"`
	Status    *string          `json:"status"`
}

type feedbackEntriesAnswer struct {
	limit int
	page  FeedbackEntriesPage
}

func (a *feedbackEntriesAnswer) decodeStream(dec *json.Decoder) error {
	a.page = FeedbackEntriesPage{} // a retry decodes again from the start
	a.page.endpoint = "feedback_entries"
	return decodeCursorPage(dec, &a.page.CursorPage, "feedback", a.limit, a.page.row)
}

func (p *FeedbackEntriesPage) row(i int, r *wireFeedbackEntry) (FeedbackEntry, error) {
	at := func(field string) string { return fmt.Sprintf("feedback[%d].%s", i, field) }
	id, err := rowID("feedback", i, r.ID)
	switch {
	case err != nil:
		return FeedbackEntry{}, err
	case r.Path == nil:
		return FeedbackEntry{}, fmt.Errorf("missing required field %q", at("path"))
	case !r.CreatedAt.set:
		return FeedbackEntry{}, fmt.Errorf("missing required field %q", at("createdAt"))
	case r.Source == nil:
		return FeedbackEntry{}, fmt.Errorf("missing required field %q", at("source"))
	case r.Status == nil:
		return FeedbackEntry{}, fmt.Errorf("missing required field %q", at("status"))
	case !slices.Contains(FeedbackSources, *r.Source):
		return FeedbackEntry{}, fmt.Errorf("field %q: unknown value %q", at("source"), ScrubText(*r.Source, ""))
	case !slices.Contains(FeedbackStatuses, *r.Status):
		return FeedbackEntry{}, fmt.Errorf("field %q: unknown value %q", at("status"), ScrubText(*r.Status, ""))
	}
	e := FeedbackEntry{ID: id, Status: *r.Status, Source: *r.Source}
	if !r.CreatedAt.null {
		t, err := time.Parse(time.RFC3339Nano, r.CreatedAt.value)
		if err != nil {
			return FeedbackEntry{}, fmt.Errorf("field %q: not an ISO 8601 date-time: %q", at("createdAt"), ScrubText(r.CreatedAt.value, ""))
		}
		e.Created = t.UTC()
	}
	if path, ok := PagePath(*r.Path); ok {
		e.Path = path
	} else {
		p.DroppedPaths++
	}
	return e, nil
}

// FeedbackEntries fetches one page of entries matching f; cursor is "" first, else the previous NextCursor.
func (c *Client) FeedbackEntries(ctx context.Context, projectID string, f FeedbackFilter, limit int, cursor string) (*FeedbackEntriesPage, error) {
	const endpoint = "feedback_entries"
	q, err := cursorQuery(endpoint, projectID, f.Range, limit, MaxFeedbackEntriesLimit, cursor)
	if err != nil {
		return nil, err
	}
	for _, s := range f.Statuses {
		if !slices.Contains(FeedbackStatuses, s) {
			return nil, fmt.Errorf("mintlify feedback_entries: unknown status %q", s)
		}
	}
	if len(f.Statuses) > 0 {
		q.Set("status", strings.Join(f.Statuses, ","))
	}
	if f.Source != "" {
		if !slices.Contains(FeedbackSources, f.Source) {
			return nil, fmt.Errorf("mintlify feedback_entries: unknown source %q", f.Source)
		}
		q.Set("source", f.Source)
	}
	a := &feedbackEntriesAnswer{limit: limit}
	req := request{endpoint: endpoint, method: "GET", path: analyticsPath(projectID, "feedback"), query: q,
		idempotent: true, maxBody: FeedbackEntriesMaxBodyBytes, stream: a}
	return result(&a.page, c.do(ctx, req, nil))
}
