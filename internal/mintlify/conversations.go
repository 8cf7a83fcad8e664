package mintlify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Assistant conversations: GET /v1/analytics/{projectId}/assistant, one
// row per conversation turn, cursor paging.
//
// Memory: every row carries the visitor's query, the full answer and its
// sources, so one page is bounded twice: ConversationsPageSize rows, and a
// body of at most ConversationsMaxBodyBytes (4 MiB, some 40 KiB a row,
// several times a long answer). The text is never decoded: the wire row
// below has no field for it, so encoding/json skips it. Reading a page
// holds its body once (one buffer of its Content-Length; up to twice the
// bound, 8 MiB, while a body of unknown length grows), and the decoded
// page keeps about 100 small rows: BenchmarkConversationsFullPage decodes
// a 3.9 MiB page into 42 KiB. A walk reads one page at a time (each
// cursor comes from the page before), so a walk of any length stays
// within one page: 4 MiB, 8 MiB at worst.
const (
	// MaxConversationsLimit is the largest limit the endpoint documents.
	MaxConversationsLimit = 1000
	// ConversationsPageSize is the limit the exporter asks for.
	ConversationsPageSize = 100
	// ConversationsMaxBodyBytes bounds one page's body.
	ConversationsMaxBodyBytes = 4 << 20
)

// The values of a conversation's resolution and response type.
const (
	Answered           = "answered"
	Unanswered         = "unanswered"
	ResponseAnswer     = "answer"
	ResponseClarifying = "clarifying_question"
)

// Conversation is what the exporter counts of one conversation turn. The
// visitor's query, the response and its sources are not read.
type Conversation struct {
	Resolution   string // Answered or Unanswered
	ResponseType string // ResponseAnswer (also when the API omits it) or ResponseClarifying
	// Category is the sanitised queryCategory (see Category), Uncategorized
	// when null.
	Category string
	// Path is where the conversation started (see PagePath); "" when the
	// pageUrl is null or gives no usable path.
	Path string
	Time time.Time
}

// ConversationsPage is one answer of the endpoint.
type ConversationsPage struct {
	Rows []Conversation
	// NextCursor is the cursor of the next page; "" when HasMore is false.
	NextCursor string
	HasMore    bool
	// CutCategories counts rows whose category was cut to
	// MaxCategoryRunes; DroppedPaths rows whose pageUrl was set but gave
	// no usable path.
	CutCategories int
	DroppedPaths  int
}

// wireConversation lists the fields counted; query, response and sources
// have no field here, so they are never decoded.
type wireConversation struct {
	Timestamp        *string          `json:"timestamp"`
	ResolutionStatus *string          `json:"resolutionStatus"`
	ResponseType     *string          `json:"responseType"`
	QueryCategory    nullable[string] `json:"queryCategory"`
	PageURL          nullable[string] `json:"pageUrl"`
}

type wireConversationsPage struct {
	Conversations *rowsUpTo[wireConversation] `json:"conversations"`
	NextCursor    nullable[string]            `json:"nextCursor"`
	HasMore       *bool                       `json:"hasMore"`

	page ConversationsPage
}

func (w *wireConversationsPage) validate() error {
	rows, next, more, err := cursorPage("conversations", w.Conversations, w.NextCursor, w.HasMore)
	if err != nil {
		return err
	}
	p := ConversationsPage{Rows: make([]Conversation, len(rows)), NextCursor: next, HasMore: more}
	for i := range rows {
		if err := p.add(i, &rows[i]); err != nil {
			return err
		}
	}
	w.page = p
	return nil
}

// add fills row i of p from r.
func (p *ConversationsPage) add(i int, r *wireConversation) error {
	at := func(field string) string { return fmt.Sprintf("conversations[%d].%s", i, field) }
	switch {
	case r.Timestamp == nil:
		return fmt.Errorf("missing required field %q", at("timestamp"))
	case r.ResolutionStatus == nil:
		return fmt.Errorf("missing required field %q", at("resolutionStatus"))
	case !r.QueryCategory.set:
		return fmt.Errorf("missing required field %q", at("queryCategory"))
	case !r.PageURL.set:
		return fmt.Errorf("missing required field %q", at("pageUrl"))
	}
	t, err := time.Parse(time.RFC3339Nano, *r.Timestamp)
	if err != nil {
		return fmt.Errorf("field %q: not an ISO 8601 date-time: %q", at("timestamp"), ScrubText(*r.Timestamp, ""))
	}
	c := Conversation{Resolution: *r.ResolutionStatus, ResponseType: ResponseAnswer, Category: Uncategorized, Time: t.UTC()}
	if c.Resolution != Answered && c.Resolution != Unanswered {
		return fmt.Errorf("field %q: unknown value %q", at("resolutionStatus"), ScrubText(c.Resolution, ""))
	}
	if r.ResponseType != nil {
		c.ResponseType = *r.ResponseType
		if c.ResponseType != ResponseAnswer && c.ResponseType != ResponseClarifying {
			return fmt.Errorf("field %q: unknown value %q", at("responseType"), ScrubText(c.ResponseType, ""))
		}
	}
	if !r.QueryCategory.null {
		var cut bool
		c.Category, cut = Category(r.QueryCategory.value)
		if cut {
			p.CutCategories++
		}
	}
	if !r.PageURL.null {
		if path, ok := PagePath(r.PageURL.value); ok {
			c.Path = path
		} else {
			p.DroppedPaths++
		}
	}
	p.Rows[i] = c
	return nil
}

// cursorPage checks what every cursor-paged answer (conversations,
// feedback entries) must hold: its rows under field, hasMore, and a
// nextCursor checked against hasMore: a page with more must say where
// they start, and the cursor must be one the client can send back (and a
// caller can save). It returns the rows, the cursor ("" when nothing
// follows, whatever the answer says) and hasMore.
func cursorPage[T any](field string, rows *rowsUpTo[T], n nullable[string], hasMore *bool) ([]T, string, bool, error) {
	rs := rows.present()
	switch {
	case rs == nil:
		return nil, "", false, fmt.Errorf("missing required field %q", field)
	case hasMore == nil:
		return nil, "", false, errors.New(`missing required field "hasMore"`)
	case !n.set:
		return nil, "", false, errors.New(`missing required field "nextCursor"`)
	case !*hasMore:
		return *rs, "", false, nil
	case n.null || !validCursor(n.value):
		return nil, "", false, fmt.Errorf(`field "nextCursor": hasMore is true but the cursor is null or unusable (empty, longer than %d bytes, or not printable ASCII)`, maxCursorBytes)
	}
	return *rs, n.value, true, nil
}

// Conversations fetches one page of assistant conversations in r, limit
// rows (1..MaxConversationsLimit; the exporter uses
// ConversationsPageSize); cursor is "" for the first page, else the
// previous page's NextCursor.
func (c *Client) Conversations(ctx context.Context, projectID string, r DateRange, limit int, cursor string) (*ConversationsPage, error) {
	const endpoint = "conversations"
	if projectID == "" {
		return nil, errors.New("mintlify conversations: empty project id")
	}
	if limit < 1 || limit > MaxConversationsLimit {
		return nil, fmt.Errorf("mintlify conversations: limit %d out of range 1..%d", limit, MaxConversationsLimit)
	}
	q, err := r.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify conversations: %w", err)
	}
	q.Set("limit", strconv.Itoa(limit))
	if cursor != "" {
		if !validCursor(cursor) {
			return nil, errors.New("mintlify conversations: unusable cursor")
		}
		q.Set("cursor", cursor)
	}
	w := wireConversationsPage{Conversations: newRows[wireConversation]("conversations", limit)}
	req := request{endpoint: endpoint, method: "GET", path: analyticsPath(projectID, "assistant"), query: q,
		idempotent: true, maxBody: ConversationsMaxBodyBytes}
	if err := c.do(ctx, req, &w); err != nil {
		return nil, err
	}
	return &w.page, nil
}
