package source

import (
	"context"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Feedback: GET feedback/by-page, one request a window; it answers the top 100 pages (no paging documented).
var _ = register(kind.Feedback, feedback{})

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
				Labels: []Label{{"kind", kv.kind}, {"path", r.Path}}})
		}
	}
	return out
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
