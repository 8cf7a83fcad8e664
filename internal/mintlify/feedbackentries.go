package mintlify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Feedback entries: GET /v1/analytics/{projectId}/feedback, one row per
// entry a reader left, cursor paging, filtered by status and source.
//
// Memory: a row carries the reader's comment and contact, and a
// code-snippet entry the snippet itself, so one page is bounded twice:
// MaxFeedbackEntriesLimit (100) rows, and a body of at most
// FeedbackEntriesMaxBodyBytes (2 MiB, some 20 KiB a row). None of that
// text is decoded (the wire row has no field for it); a decoded page
// keeps 100 rows of about 100 bytes beside their path. Reading a page
// holds its body once (twice the bound, 4 MiB, at worst while a body of
// unknown length grows), and a walk reads one page at a time.
const (
	// MaxFeedbackEntriesLimit is the largest limit the endpoint
	// documents, and the page size the exporter asks for.
	MaxFeedbackEntriesLimit = 100
	// FeedbackEntriesMaxBodyBytes bounds one page's body.
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

// FeedbackEntry is what the exporter counts of one entry. The reader's
// comment and contact (and a snippet's code) are not read.
type FeedbackEntry struct {
	Status string // one of FeedbackStatuses
	Source string // one of FeedbackSources
	// Path is the page (see PagePath); "" when the entry's path gives no
	// usable one.
	Path string
	// Created is when the entry was left; zero when the API sends null.
	Created time.Time
}

// FeedbackEntriesPage is one answer of the endpoint.
type FeedbackEntriesPage struct {
	Rows []FeedbackEntry
	// NextCursor is the cursor of the next page; "" when HasMore is false.
	NextCursor string
	HasMore    bool
	// DroppedPaths counts rows whose path gave no usable one.
	DroppedPaths int
}

// FeedbackFilter is which entries to ask for: those created in Range,
// with one of Statuses (all when empty) and from Source (all when "").
type FeedbackFilter struct {
	Range    DateRange
	Statuses []string
	Source   string
}

// wireFeedbackEntry covers the fields every shape shares and the exporter
// counts; comment, contact, helpful, code, filename and lang have no field
// here, so they are never decoded.
type wireFeedbackEntry struct {
	Path      *string          `json:"path"`
	CreatedAt nullable[string] `json:"createdAt"`
	Source    *string          `json:"source"`
	Status    *string          `json:"status"`
}

type wireFeedbackEntriesPage struct {
	Feedback   *rowsUpTo[wireFeedbackEntry] `json:"feedback"`
	NextCursor nullable[string]             `json:"nextCursor"`
	HasMore    *bool                        `json:"hasMore"`

	page FeedbackEntriesPage
}

func (w *wireFeedbackEntriesPage) validate() error {
	rows, next, more, err := cursorPage("feedback", w.Feedback, w.NextCursor, w.HasMore)
	if err != nil {
		return err
	}
	p := FeedbackEntriesPage{Rows: make([]FeedbackEntry, len(rows)), NextCursor: next, HasMore: more}
	for i := range rows {
		if err := p.add(i, &rows[i]); err != nil {
			return err
		}
	}
	w.page = p
	return nil
}

// add fills row i of p from r.
func (p *FeedbackEntriesPage) add(i int, r *wireFeedbackEntry) error {
	at := func(field string) string { return fmt.Sprintf("feedback[%d].%s", i, field) }
	switch {
	case r.Path == nil:
		return fmt.Errorf("missing required field %q", at("path"))
	case !r.CreatedAt.set:
		return fmt.Errorf("missing required field %q", at("createdAt"))
	case r.Source == nil:
		return fmt.Errorf("missing required field %q", at("source"))
	case r.Status == nil:
		return fmt.Errorf("missing required field %q", at("status"))
	case !slices.Contains(FeedbackSources, *r.Source):
		return fmt.Errorf("field %q: unknown value %q", at("source"), ScrubText(*r.Source, ""))
	case !slices.Contains(FeedbackStatuses, *r.Status):
		return fmt.Errorf("field %q: unknown value %q", at("status"), ScrubText(*r.Status, ""))
	}
	e := FeedbackEntry{Status: *r.Status, Source: *r.Source}
	if !r.CreatedAt.null {
		t, err := time.Parse(time.RFC3339Nano, r.CreatedAt.value)
		if err != nil {
			return fmt.Errorf("field %q: not an ISO 8601 date-time: %q", at("createdAt"), ScrubText(r.CreatedAt.value, ""))
		}
		e.Created = t.UTC()
	}
	if path, ok := PagePath(*r.Path); ok {
		e.Path = path
	} else {
		p.DroppedPaths++
	}
	p.Rows[i] = e
	return nil
}

// FeedbackEntries fetches one page of feedback entries matching f, limit
// rows (1..MaxFeedbackEntriesLimit); cursor is "" for the first page, else
// the previous page's NextCursor.
func (c *Client) FeedbackEntries(ctx context.Context, projectID string, f FeedbackFilter, limit int, cursor string) (*FeedbackEntriesPage, error) {
	const endpoint = "feedback_entries"
	if projectID == "" {
		return nil, errors.New("mintlify feedback_entries: empty project id")
	}
	if limit < 1 || limit > MaxFeedbackEntriesLimit {
		return nil, fmt.Errorf("mintlify feedback_entries: limit %d out of range 1..%d", limit, MaxFeedbackEntriesLimit)
	}
	q, err := f.Range.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify feedback_entries: %w", err)
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
	q.Set("limit", strconv.Itoa(limit))
	if cursor != "" {
		if !validCursor(cursor) {
			return nil, errors.New("mintlify feedback_entries: unusable cursor")
		}
		q.Set("cursor", cursor)
	}
	w := wireFeedbackEntriesPage{Feedback: newRows[wireFeedbackEntry]("feedback", limit)}
	req := request{endpoint: endpoint, method: "GET", path: analyticsPath(projectID, "feedback"), query: q,
		idempotent: true, maxBody: FeedbackEntriesMaxBodyBytes}
	if err := c.do(ctx, req, &w); err != nil {
		return nil, err
	}
	return &w.page, nil
}
