package backfill

import (
	"encoding/json"

	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
)

// journalV1 is what a journal of version 1 kept of the other counters'
// answers, moved to the kinds' payloads as it is read, so that a backfill
// begun by an earlier release resumes.
type journalV1 struct {
	V1Feedback []struct {
		Path       string  `json:"path"`
		ThumbsUp   float64 `json:"up"`
		ThumbsDown float64 `json:"down"`
		Code       float64 `json:"code"`
	} `json:"feedback,omitempty"`
	V1Searches  *float64 `json:"searches,omitempty"`
	V1Assistant *struct {
		Web   float64 `json:"Web"`
		API   float64 `json:"API"`
		Other float64 `json:"Other"`
	} `json:"assistant,omitempty"`
}

// migrate moves a version 1 answer to Payload.
func (jp *journalPage) migrate() error {
	var p source.Payload
	switch v := jp.journalV1; {
	case v.V1Feedback != nil:
		fb := &source.FeedbackPayload{Pages: []source.FeedbackPage{}}
		for _, r := range v.V1Feedback {
			fb.Pages = append(fb.Pages, source.FeedbackPage{Path: r.Path, ThumbsUp: r.ThumbsUp, ThumbsDown: r.ThumbsDown, Code: r.Code})
		}
		p = fb
	case v.V1Searches != nil:
		p = &source.SearchesPayload{Total: *v.V1Searches, Terms: []source.SearchTerm{}}
	case v.V1Assistant != nil:
		p = &source.AssistantPayload{Web: v.V1Assistant.Web, API: v.V1Assistant.API, Other: v.V1Assistant.Other}
	default:
		return nil
	}
	b, err := json.Marshal(p)
	jp.Payload, jp.journalV1 = b, journalV1{}
	return err
}
