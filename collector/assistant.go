package collector

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Assistant: GET assistant/caller-stats, one request a window.
const Assistant = "assistant"

var assistantRow = spec.Collector{
	Name: Assistant, Weight: 1, Summary: "assistant queries by caller (web, api, other)",
	Endpoint: "assistant/caller-stats", Windows: spec.MonthAndWindows,
	Families: []Family{
		{Name: "mintlify_assistant_queries_total", Counter: true, Labels: []string{"caller", "project"},
			Help: "Assistant queries since the start of the current UTC calendar month, by caller: web, api, other." + monthCounter},
		{Name: "mintlify_assistant_queries", Labels: []string{"caller", "project", "window"},
			Help: "Assistant queries in the rolling window by caller: web (the docs site), api, other (integrations, SDKs)."},
	},
	Fetched: assistant{},
}

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
		{Family: "mintlify_assistant_queries", Labels: []Label{{Name: "caller", Value: "web"}}, Value: p.Web},
		{Family: "mintlify_assistant_queries", Labels: []Label{{Name: "caller", Value: "api"}}, Value: p.API},
		{Family: "mintlify_assistant_queries", Labels: []Label{{Name: "caller", Value: "other"}}, Value: p.Other},
	}
}

func (assistant) Check(pl Payload, _ time.Time) error {
	p := pl.(*AssistantPayload)
	return checkCounts("", map[string]float64{"web": p.Web, "api": p.API, "other": p.Other})
}
