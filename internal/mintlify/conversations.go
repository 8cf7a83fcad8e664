package mintlify

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Assistant conversations: GET .../assistant, cursor paging (Follow). Rows carry the visitor's query, answer
// and sources, so a page is decoded as a stream into wire rows with no field for the text: memory follows
// the longest row, not the page (BenchmarkConversationsFullPage).
const (
	// MaxConversationsLimit is the largest limit the endpoint documents.
	MaxConversationsLimit = 1000
	// ConversationsPageSize is the limit the exporter asks for.
	ConversationsPageSize = MaxConversationsLimit
	// ConversationsMaxBodyBytes bounds a page's body: 64 KiB a row; larger is no API answer.
	ConversationsMaxBodyBytes = 64 << 20
)

// The values of a conversation's resolution and response type.
const (
	Answered           = "answered"
	Unanswered         = "unanswered"
	ResponseAnswer     = "answer"
	ResponseClarifying = "clarifying_question"
)

// MaxRowIDBytes bounds a row's id (the API's are 26-character ULIDs); empty or longer spoils the page.
const MaxRowIDBytes = 256

// Conversation is what the exporter counts of one turn; the query, response and sources' titles are not read.
type Conversation struct {
	ID           string // the conversation's id, which the walk de-duplicates by
	Resolution   string // Answered or Unanswered
	ResponseType string // ResponseAnswer (also when the API omits it) or ResponseClarifying
	Category     string
	Path         string
	Time         time.Time
	// PathDropped: a pageUrl given that left no usable path.
	PathDropped bool
	// Sources is how many sources the row gives; Cited the distinct paths of those with an http(s) URL
	// (SourcePath), sorted; DroppedSources those whose URL gave none.
	Sources        int
	Cited          []string
	DroppedSources int
}

// ConversationsPage is one answer of the endpoint.
type ConversationsPage struct {
	CursorPage[Conversation]
	// CutCategories counts categories cut to MaxCategoryRunes; DroppedPaths pageUrls that gave no usable path.
	CutCategories int
	DroppedPaths  int
}

func (c Conversation) walkKey() (string, time.Time) { return c.ID, c.Time }

type wireConversation struct {
	ID               *string          `json:"id"`
	Timestamp        *string          `json:"timestamp"`
	ResolutionStatus *string          `json:"resolutionStatus"`
	ResponseType     *string          `json:"responseType"`
	QueryCategory    nullable[string] `json:"queryCategory"`
	PageURL          nullable[string] `json:"pageUrl"`
	Sources          []wireSource     `json:"sources"`
}

// wireSource keeps a source's url only: its title is page text, never decoded. A source that is no object,
// or whose url is no string, is kept unread (ok false) and dropped, rather than spoil the page.
type wireSource struct {
	url string
	ok  bool
}

func (s *wireSource) UnmarshalJSON(b []byte) error {
	var w struct {
		URL json.RawMessage `json:"url"`
	}
	s.ok = json.Unmarshal(b, &w) == nil && json.Unmarshal(w.URL, &s.url) == nil
	return nil
}

type conversationsAnswer struct {
	limit int
	page  ConversationsPage
}

func (a *conversationsAnswer) decodeStream(dec *json.Decoder) error {
	a.page = ConversationsPage{} // a retry decodes again from the start
	a.page.endpoint = "conversations"
	return decodeCursorPage(dec, &a.page.CursorPage, "conversations", a.limit, a.page.row)
}

func rowID(field string, i int, id *string) (string, error) {
	switch {
	case id == nil:
		return "", fmt.Errorf("missing required field %q", fmt.Sprintf("%s[%d].id", field, i))
	case *id == "" || len(*id) > MaxRowIDBytes:
		return "", fmt.Errorf("field %q: empty or longer than %d bytes", fmt.Sprintf("%s[%d].id", field, i), MaxRowIDBytes)
	}
	return *id, nil
}

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
			c.PathDropped = true
		}
	}
	c.Sources = len(r.Sources)
	for _, src := range r.Sources {
		path, ok := "", src.ok
		if ok {
			path, ok = SourcePath(src.url)
		}
		switch {
		case !ok:
			c.DroppedSources++
		case !slices.Contains(c.Cited, path):
			c.Cited = append(c.Cited, path)
		}
	}
	slices.Sort(c.Cited)
	return c, nil
}

// Conversations fetches one page of conversations in r; cursor is "" first, else the previous NextCursor.
func (c *Client) Conversations(ctx context.Context, projectID string, r DateRange, limit int, cursor string) (*ConversationsPage, error) {
	const endpoint = "conversations"
	q, err := cursorQuery(endpoint, projectID, r, limit, MaxConversationsLimit, cursor)
	if err != nil {
		return nil, err
	}
	a := &conversationsAnswer{limit: limit}
	req := request{endpoint: endpoint, method: "GET", path: analyticsPath(projectID, "assistant"), query: q,
		idempotent: true, maxBody: ConversationsMaxBodyBytes, stream: a}
	return result(&a.page, c.do(ctx, req, nil))
}
