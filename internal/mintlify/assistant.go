package mintlify

import (
	"context"
	"errors"
	"fmt"
)

// CallerStats counts assistant queries by where they came from.
type CallerStats struct {
	Web, API, Other, Total float64
}

type wireCallerStats struct {
	Web   *float64 `json:"web"`
	API   *float64 `json:"api"`
	Other *float64 `json:"other"`
	Total *float64 `json:"total"`

	stats CallerStats
}

func (w *wireCallerStats) validate() error {
	for name, v := range map[string]*float64{"web": w.Web, "api": w.API, "other": w.Other, "total": w.Total} {
		if v == nil {
			return fmt.Errorf("missing required field %q", name)
		}
		if err := CheckCount(*v, name); err != nil {
			return err
		}
	}
	w.stats = CallerStats{Web: *w.Web, API: *w.API, Other: *w.Other, Total: *w.Total}
	return nil
}

// AssistantCallerStats fetches assistant query counts by caller.
func (c *Client) AssistantCallerStats(ctx context.Context, projectID string, r DateRange) (*CallerStats, error) {
	if projectID == "" {
		return nil, errors.New("mintlify caller_stats: empty project id")
	}
	q, err := r.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify caller_stats: %w", err)
	}
	var w wireCallerStats
	return result(&w.stats, c.do(ctx, request{endpoint: "caller_stats", method: "GET", path: analyticsPath(projectID, "assistant/caller-stats"), query: q, idempotent: true}, &w))
}
