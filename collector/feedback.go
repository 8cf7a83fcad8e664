package collector

import (
	"context"
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Feedback: GET feedback/by-page, one request a window; it answers the top 100 pages (no paging documented).
const Feedback = "feedback"

var feedbackRow = spec.Collector{
	Name: Feedback, Weight: 1, Summary: "thumbs up/down and code-snippet feedback per page",
	Endpoint: "feedback/by-page", Windows: spec.MonthAndWindows,
	Families: []Family{
		{Name: "mintlify_page_feedback_total", Counter: true, Labels: []string{"kind", "path", "project"},
			Help: "Feedback entries on one page since the start of the current UTC calendar month, by kind: thumbs_up, thumbs_down, code_snippet. Only the 100 pages with the most feedback this month are listed (see mintlify_page_feedback_truncated{window=\"month\"})." + monthCounter},
		{Name: "mintlify_page_feedback", Labels: []string{"kind", "path", "project", "window"},
			Help: "Feedback entries on one page in the rolling window, by kind: thumbs_up, thumbs_down (contextual feedback) and code_snippet (feedback on a code block)."},
		{Name: "mintlify_page_feedback_truncated", Month: true, Labels: []string{"project", "window"},
			Help: "1 if the upstream had feedback on more pages than the 100 one request returns (the endpoint documents no paging)."},
	},
	Fetched: feedback{},
}

// FeedbackPayload is the feedback of a window's pages, as stored.
type FeedbackPayload struct {
	Pages     []FeedbackPage `json:"pages"`
	Truncated bool           `json:"truncated"`
}

// FeedbackPage is the feedback entries of one page, by kind.
type FeedbackPage struct {
	Path       string  `json:"path"`
	ThumbsUp   float64 `json:"thumbs_up"`
	ThumbsDown float64 `json:"thumbs_down"`
	Code       float64 `json:"code_snippet"`
}

type feedback struct{}

func (feedback) Cost(Payload) int { return 1 }
func (feedback) Empty() Payload   { return &FeedbackPayload{} }

func (feedback) Fetch(ctx context.Context, q Query) (Payload, error) {
	page, err := q.Client.FeedbackByPage(ctx, q.Project, q.Range, mintlify.MaxFeedbackLimit)
	if err != nil {
		return nil, err
	}
	p := &FeedbackPayload{Truncated: page.HasMore, Pages: make([]FeedbackPage, 0, len(page.Rows))}
	for _, r := range page.Rows {
		p.Pages = append(p.Pages, FeedbackPage{Path: r.Path, ThumbsUp: r.ThumbsUp, ThumbsDown: r.ThumbsDown, Code: r.Code})
	}
	return p, nil
}

// Samples: a path that comes twice keeps its first row.
func (feedback) Samples(pl Payload, s Settings) []Sample {
	p := pl.(*FeedbackPayload)
	out := []Sample{{Family: "mintlify_page_feedback_truncated", Value: boolFloat(p.Truncated)}}
	seen := map[string]bool{}
	for _, r := range p.Pages {
		if seen[r.Path] || !s.Keep(r.Path) {
			continue
		}
		seen[r.Path] = true
		for _, kv := range []struct {
			kind string
			v    float64
		}{{"thumbs_up", r.ThumbsUp}, {"thumbs_down", r.ThumbsDown}, {"code_snippet", r.Code}} {
			out = append(out, Sample{Family: "mintlify_page_feedback", Value: kv.v,
				Labels: []Label{{Name: "kind", Value: kv.kind}, {Name: "path", Value: r.Path}}})
		}
	}
	return out
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
