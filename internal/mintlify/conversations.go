package mintlify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Assistant conversations: GET /v1/analytics/{projectId}/assistant, one
// row per conversation turn, cursor paging (walked with Follow).
//
// Memory: every row carries the visitor's query, the full answer and its
// sources. The page is decoded as a stream (decodeCursorPage): each row
// is read into a wire row that has no field for the text, so the text is
// skipped, never decoded, and the body is never held whole. A page of
// ConversationsPageSize rows keeps about 1 000 rows of some 150 bytes,
// whatever its body's size: BenchmarkConversationsFullPage decodes a page
// of 1 000 rows with long answers (39 MiB) allocating about 1 % of it.
// The body is still bounded, ConversationsMaxBodyBytes (64 KiB a row at
// the page size): a page larger than that is no answer of the API, and
// reading one costs time and bandwidth of the budget's request. The
// decoder's buffer holds one row at a time, so it grows to the longest
// row, not to the page.
const (
	// MaxConversationsLimit is the largest limit the endpoint documents,
	// and the page size the exporter asks for.
	MaxConversationsLimit = 1000
	// ConversationsPageSize is the limit the exporter asks for.
	ConversationsPageSize = MaxConversationsLimit
	// ConversationsMaxBodyBytes bounds one page's body.
	ConversationsMaxBodyBytes = 64 << 20
)

// The values of a conversation's resolution and response type.
const (
	Answered           = "answered"
	Unanswered         = "unanswered"
	ResponseAnswer     = "answer"
	ResponseClarifying = "clarifying_question"
)

// MaxRowIDBytes bounds a row's id (a conversation's, a feedback entry's):
// the API's are ULIDs of 26 characters; an empty or longer one makes the
// page unusable.
const MaxRowIDBytes = 256

// Conversation is what the exporter counts of one conversation turn. The
// visitor's query, the response and its sources are not read.
type Conversation struct {
	ID           string // the conversation's id, which the walk de-duplicates by
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
	CursorPage[Conversation]
	// CutCategories counts rows whose category was cut to
	// MaxCategoryRunes; DroppedPaths rows whose pageUrl was set but gave
	// no usable path.
	CutCategories int
	DroppedPaths  int
}

func (c Conversation) walkKey() (string, time.Time) { return c.ID, c.Time }

// wireConversation lists the fields counted; query, response and sources
// have no field here, so they are never decoded.
type wireConversation struct {
	ID               *string          `json:"id"`
	Timestamp        *string          `json:"timestamp"`
	ResolutionStatus *string          `json:"resolutionStatus"`
	ResponseType     *string          `json:"responseType"`
	QueryCategory    nullable[string] `json:"queryCategory"`
	PageURL          nullable[string] `json:"pageUrl"`
}

// conversationsAnswer decodes a page of at most limit rows.
type conversationsAnswer struct {
	limit int
	page  ConversationsPage
}

func (a *conversationsAnswer) decodeStream(dec *json.Decoder) error {
	a.page = ConversationsPage{} // a retry decodes again from the start
	p := &a.page
	p.endpoint = "conversations"
	var err error
	p.NextCursor, p.HasMore, err = decodeCursorPage(dec, "conversations", a.limit, func(i int, r *wireConversation) error {
		c, err := p.row(i, r)
		if err != nil {
			return err
		}
		p.Rows = append(p.Rows, c)
		return nil
	})
	return err
}

// rowID checks the id of row i of field.
func rowID(field string, i int, id *string) (string, error) {
	switch {
	case id == nil:
		return "", fmt.Errorf("missing required field %q", fmt.Sprintf("%s[%d].id", field, i))
	case *id == "" || len(*id) > MaxRowIDBytes:
		return "", fmt.Errorf("field %q: empty or longer than %d bytes", fmt.Sprintf("%s[%d].id", field, i), MaxRowIDBytes)
	}
	return *id, nil
}

// row is row i of p, from r.
func (p *ConversationsPage) row(i int, r *wireConversation) (Conversation, error) {
	at := func(field string) string { return fmt.Sprintf("conversations[%d].%s", i, field) }
	id, err := rowID("conversations", i, r.ID)
	switch {
	case err != nil:
		return Conversation{}, err
	case r.Timestamp == nil:
		return Conversation{}, fmt.Errorf("missing required field %q", at("timestamp"))
	case r.ResolutionStatus == nil:
		return Conversation{}, fmt.Errorf("missing required field %q", at("resolutionStatus"))
	case !r.QueryCategory.set:
		return Conversation{}, fmt.Errorf("missing required field %q", at("queryCategory"))
	case !r.PageURL.set:
		return Conversation{}, fmt.Errorf("missing required field %q", at("pageUrl"))
	}
	t, err := time.Parse(time.RFC3339Nano, *r.Timestamp)
	if err != nil {
		return Conversation{}, fmt.Errorf("field %q: not an ISO 8601 date-time: %q", at("timestamp"), ScrubText(*r.Timestamp, ""))
	}
	c := Conversation{ID: id, Resolution: *r.ResolutionStatus, ResponseType: ResponseAnswer, Category: Uncategorized, Time: t.UTC()}
	if c.Resolution != Answered && c.Resolution != Unanswered {
		return Conversation{}, fmt.Errorf("field %q: unknown value %q", at("resolutionStatus"), ScrubText(c.Resolution, ""))
	}
	if r.ResponseType != nil {
		c.ResponseType = *r.ResponseType
		if c.ResponseType != ResponseAnswer && c.ResponseType != ResponseClarifying {
			return Conversation{}, fmt.Errorf("field %q: unknown value %q", at("responseType"), ScrubText(c.ResponseType, ""))
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
	return c, nil
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
	a := &conversationsAnswer{limit: limit}
	req := request{endpoint: endpoint, method: "GET", path: analyticsPath(projectID, "assistant"), query: q,
		idempotent: true, maxBody: ConversationsMaxBodyBytes, stream: a}
	if err := c.do(ctx, req, nil); err != nil {
		return nil, err
	}
	return &a.page, nil
}
