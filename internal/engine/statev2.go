package engine

import (
	"encoding/json"

	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
)

// The payloads of state files of versions 1 and 2, with the keys they
// were written with (the API client's Go field names), and their move to
// the payloads of version 3 (internal/source). A file of version 3 has
// none of them.

// v2Payloads are where version 2 kept the answers of the kinds now in
// internal/source, as the API client's types.
type v2Payloads struct {
	V2Feedback  *v2Feedback  `json:"feedback,omitempty"`
	V2Searches  *v2Searches  `json:"searches,omitempty"`
	V2Assistant *v2Assistant `json:"assistant,omitempty"`
}

type v2Feedback struct {
	Rows []struct {
		Path       string  `json:"Path"`
		ThumbsUp   float64 `json:"ThumbsUp"`
		ThumbsDown float64 `json:"ThumbsDown"`
		Code       float64 `json:"Code"`
	} `json:"Rows"`
	HasMore bool `json:"HasMore"`
}

type v2Searches struct {
	Rows []struct {
		Query string  `json:"Query"`
		Hits  float64 `json:"Hits"`
		CTR   float64 `json:"CTR"`
	} `json:"Rows"`
	TotalSearches float64 `json:"TotalSearches"`
}

type v2Assistant struct {
	Web   float64 `json:"Web"`
	API   float64 `json:"API"`
	Other float64 `json:"Other"`
}

// migrate moves a version 2 payload to Payload.
func (rec *windowRecord) migrate() error {
	var p source.Payload
	switch {
	case rec.V2Feedback != nil:
		fb := &source.FeedbackPayload{Truncated: rec.V2Feedback.HasMore, Pages: []source.FeedbackPage{}}
		for _, r := range rec.V2Feedback.Rows {
			fb.Pages = append(fb.Pages, source.FeedbackPage{Path: r.Path, ThumbsUp: r.ThumbsUp, ThumbsDown: r.ThumbsDown, Code: r.Code})
		}
		p = fb
	case rec.V2Searches != nil:
		se := &source.SearchesPayload{Total: rec.V2Searches.TotalSearches, Terms: []source.SearchTerm{}}
		for _, r := range rec.V2Searches.Rows {
			se.Terms = append(se.Terms, source.SearchTerm{Query: r.Query, Hits: r.Hits, CTR: r.CTR})
		}
		p = se
	case rec.V2Assistant != nil:
		p = &source.AssistantPayload{Web: rec.V2Assistant.Web, API: rec.V2Assistant.API, Other: rec.V2Assistant.Other}
	default:
		return nil
	}
	b, err := json.Marshal(p)
	rec.Payload, rec.v2Payloads = b, v2Payloads{}
	return err
}
