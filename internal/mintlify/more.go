package mintlify

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// MaxFeedbackLimit and MaxSearchesLimit are the documented page sizes of
// feedback/by-page and searches.
const (
	MaxFeedbackLimit = 100
	MaxSearchesLimit = 100
)

// FeedbackRow is the feedback of one page. Code counts code-snippet
// feedback entries.
type FeedbackRow struct {
	Path       string
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

type wireFeedbackPage struct {
	Feedback *[]struct {
		Path       *string  `json:"path"`
		ThumbsUp   *float64 `json:"thumbsUp"`
		ThumbsDown *float64 `json:"thumbsDown"`
		Code       *float64 `json:"code"`
		Total      *float64 `json:"total"`
	} `json:"feedback"`
	HasMore *bool `json:"hasMore"`

	limit int
	page  FeedbackPage
}

func (w *wireFeedbackPage) validate() error {
	if w.Feedback == nil {
		return errors.New(`missing required field "feedback"`)
	}
	if w.HasMore == nil {
		return errors.New(`missing required field "hasMore"`)
	}
	if err := checkRows("feedback", len(*w.Feedback), w.limit); err != nil {
		return err
	}
	rows := make([]FeedbackRow, len(*w.Feedback))
	for i, r := range *w.Feedback {
		if r.Path == nil || r.ThumbsUp == nil || r.ThumbsDown == nil || r.Code == nil || r.Total == nil {
			return fmt.Errorf(`missing required field in "feedback[%d]"`, i)
		}
		for name, v := range map[string]float64{"thumbsUp": *r.ThumbsUp, "thumbsDown": *r.ThumbsDown, "code": *r.Code, "total": *r.Total} {
			if err := checkCount(v, fmt.Sprintf("feedback[%d].%s", i, name)); err != nil {
				return err
			}
		}
		rows[i] = FeedbackRow{Path: *r.Path, ThumbsUp: *r.ThumbsUp, ThumbsDown: *r.ThumbsDown, Code: *r.Code, Total: *r.Total}
	}
	w.page = FeedbackPage{Rows: rows, HasMore: *w.HasMore}
	return nil
}

// FeedbackByPage fetches the first page of per-page feedback, limit rows
// (1..MaxFeedbackLimit). The endpoint documents no offset, so only one page
// can be read; HasMore says whether rows were left out.
func (c *Client) FeedbackByPage(ctx context.Context, projectID string, r DateRange, limit int) (*FeedbackPage, error) {
	if projectID == "" {
		return nil, errors.New("mintlify feedback_by_page: empty project id")
	}
	if limit < 1 || limit > MaxFeedbackLimit {
		return nil, fmt.Errorf("mintlify feedback_by_page: limit %d out of range 1..%d", limit, MaxFeedbackLimit)
	}
	q, err := r.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify feedback_by_page: %w", err)
	}
	q.Set("limit", strconv.Itoa(limit))
	w := wireFeedbackPage{limit: limit}
	if err := c.do(ctx, request{endpoint: "feedback_by_page", method: "GET", path: analyticsPath(projectID, "feedback/by-page"), query: q, idempotent: true}, &w); err != nil {
		return nil, err
	}
	return &w.page, nil
}

// SearchRow is one search term.
type SearchRow struct {
	Query          string
	Hits           float64
	CTR            float64 // click-through rate, 0..1
	TopClickedPage *string
	LastSearchedAt string
}

// SearchesPage is one answer of searches, terms by hits descending.
type SearchesPage struct {
	Rows          []SearchRow
	TotalSearches float64 // search events in the range (sum of all hits)
	NextCursor    *string
}

type wireSearchesPage struct {
	Searches *[]struct {
		SearchQuery    *string  `json:"searchQuery"`
		Hits           *float64 `json:"hits"`
		CTR            *float64 `json:"ctr"`
		TopClickedPage *string  `json:"topClickedPage"`
		LastSearchedAt *string  `json:"lastSearchedAt"`
	} `json:"searches"`
	TotalSearches *float64 `json:"totalSearches"`
	NextCursor    *string  `json:"nextCursor"`

	limit int
	page  SearchesPage
}

func (w *wireSearchesPage) validate() error {
	if w.Searches == nil {
		return errors.New(`missing required field "searches"`)
	}
	if w.TotalSearches == nil {
		return errors.New(`missing required field "totalSearches"`)
	}
	if err := checkCount(*w.TotalSearches, "totalSearches"); err != nil {
		return err
	}
	if err := checkRows("searches", len(*w.Searches), w.limit); err != nil {
		return err
	}
	rows := make([]SearchRow, len(*w.Searches))
	for i, r := range *w.Searches {
		if r.SearchQuery == nil || r.Hits == nil || r.CTR == nil {
			return fmt.Errorf(`missing required field in "searches[%d]"`, i)
		}
		if err := checkCount(*r.Hits, fmt.Sprintf("searches[%d].hits", i)); err != nil {
			return err
		}
		if err := checkCount(*r.CTR, fmt.Sprintf("searches[%d].ctr", i)); err != nil {
			return err
		}
		row := SearchRow{Query: *r.SearchQuery, Hits: *r.Hits, CTR: *r.CTR, TopClickedPage: r.TopClickedPage}
		if r.LastSearchedAt != nil {
			row.LastSearchedAt = *r.LastSearchedAt
		}
		rows[i] = row
	}
	w.page = SearchesPage{Rows: rows, TotalSearches: *w.TotalSearches, NextCursor: w.NextCursor}
	return nil
}

// Searches fetches one page of search terms (limit 1..MaxSearchesLimit);
// cursor is "" for the first page, else the previous NextCursor.
func (c *Client) Searches(ctx context.Context, projectID string, r DateRange, limit int, cursor string) (*SearchesPage, error) {
	if projectID == "" {
		return nil, errors.New("mintlify searches: empty project id")
	}
	if limit < 1 || limit > MaxSearchesLimit {
		return nil, fmt.Errorf("mintlify searches: limit %d out of range 1..%d", limit, MaxSearchesLimit)
	}
	q, err := r.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify searches: %w", err)
	}
	q.Set("limit", strconv.Itoa(limit))
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	w := wireSearchesPage{limit: limit}
	if err := c.do(ctx, request{endpoint: "searches", method: "GET", path: analyticsPath(projectID, "searches"), query: q, idempotent: true}, &w); err != nil {
		return nil, err
	}
	return &w.page, nil
}

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
		if err := checkCount(*v, name); err != nil {
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
	if err := c.do(ctx, request{endpoint: "caller_stats", method: "GET", path: analyticsPath(projectID, "assistant/caller-stats"), query: q, idempotent: true}, &w); err != nil {
		return nil, err
	}
	return &w.stats, nil
}
