package mintlify

import (
	"context"
	"errors"
	"fmt"
)

// MaxFeedbackLimit and MaxSearchesLimit are the documented page sizes.
const (
	MaxFeedbackLimit = 100
	MaxSearchesLimit = 100
)

// FeedbackRow is the feedback of one page; Code counts code-snippet entries.
type FeedbackRow struct {
	Path       string // escaped, as PageViewRow.Path
	ThumbsUp   float64
	ThumbsDown float64
	Code       float64
	Total      float64
}

// FeedbackPage is one answer of feedback/by-page.
type FeedbackPage struct {
	Rows    []FeedbackRow
	HasMore bool
}

type wireFeedbackRow struct {
	Path       *rawText `json:"path"`
	ThumbsUp   *float64 `json:"thumbsUp"`
	ThumbsDown *float64 `json:"thumbsDown"`
	Code       *float64 `json:"code"`
	Total      *float64 `json:"total"`
}

type wireFeedbackPage struct {
	Feedback *rowsUpTo[wireFeedbackRow] `json:"feedback"`
	HasMore  *bool                      `json:"hasMore"`

	page FeedbackPage
}

func (w *wireFeedbackPage) validate() error {
	feedback := w.Feedback.present()
	if feedback == nil {
		return errors.New(`missing required field "feedback"`)
	}
	if w.HasMore == nil {
		return errors.New(`missing required field "hasMore"`)
	}
	rows := make([]FeedbackRow, len(*feedback))
	for i, r := range *feedback {
		if r.Path == nil || r.ThumbsUp == nil || r.ThumbsDown == nil || r.Code == nil || r.Total == nil {
			return fmt.Errorf(`missing required field in "feedback[%d]"`, i)
		}
		for name, v := range map[string]float64{"thumbsUp": *r.ThumbsUp, "thumbsDown": *r.ThumbsDown, "code": *r.Code, "total": *r.Total} {
			if err := CheckCount(v, fmt.Sprintf("feedback[%d].%s", i, name)); err != nil {
				return err
			}
		}
		rows[i] = FeedbackRow{Path: EscapeText(string(*r.Path)), ThumbsUp: *r.ThumbsUp, ThumbsDown: *r.ThumbsDown, Code: *r.Code, Total: *r.Total}
	}
	w.page = FeedbackPage{Rows: rows, HasMore: *w.HasMore}
	return nil
}

// FeedbackByPage fetches the one page the endpoint has (no offset documented); HasMore says rows were left out.
func (c *Client) FeedbackByPage(ctx context.Context, projectID string, r DateRange, limit int) (*FeedbackPage, error) {
	q, err := pageQuery("feedback_by_page", projectID, r, limit, MaxFeedbackLimit)
	if err != nil {
		return nil, err
	}
	w := wireFeedbackPage{Feedback: newRows[wireFeedbackRow]("feedback", limit)}
	return result(&w.page, c.do(ctx, request{endpoint: "feedback_by_page", method: "GET", path: analyticsPath(projectID, "feedback/by-page"), query: q, idempotent: true}, &w))
}
