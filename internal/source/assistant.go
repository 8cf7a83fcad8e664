package source

import (
	"context"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
)

// Assistant: GET assistant/caller-stats, one request a window.
var _ = register(kind.Assistant, assistant{})

// AssistantPayload is a window's assistant queries by caller, as stored.
type AssistantPayload struct {
	Web   float64 `json:"web"`
	API   float64 `json:"api"`
	Other float64 `json:"other"`
}

type assistant struct{}

func (assistant) Cost(Payload) int { return 1 }
func (assistant) Empty() Payload   { return &AssistantPayload{} }

func (assistant) Fetch(ctx context.Context, q Query) (Payload, error) {
	s, err := q.Client.AssistantCallerStats(ctx, q.Project, q.Range)
	if err != nil {
		return nil, err
	}
	return &AssistantPayload{Web: s.Web, API: s.API, Other: s.Other}, nil
}

func (assistant) Samples(pl Payload, _ Settings) []Sample {
	p := pl.(*AssistantPayload)
	return []Sample{
		{Family: "mintlify_assistant_queries", Labels: []Label{{"caller", "web"}}, Value: p.Web},
		{Family: "mintlify_assistant_queries", Labels: []Label{{"caller", "api"}}, Value: p.API},
		{Family: "mintlify_assistant_queries", Labels: []Label{{"caller", "other"}}, Value: p.Other},
	}
}
