package mintlify

import (
	"context"
	"errors"
	"fmt"
)

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

type wireSearchRow struct {
	SearchQuery    *string  `json:"searchQuery"`
	Hits           *float64 `json:"hits"`
	CTR            *float64 `json:"ctr"`
	TopClickedPage *string  `json:"topClickedPage"`
	LastSearchedAt *string  `json:"lastSearchedAt"`
}

type wireSearchesPage struct {
	Searches      *rowsUpTo[wireSearchRow] `json:"searches"`
	TotalSearches *float64                 `json:"totalSearches"`
	NextCursor    *string                  `json:"nextCursor"`

	page SearchesPage
}

func (w *wireSearchesPage) validate() error {
	searches := w.Searches.present()
	if searches == nil {
		return errors.New(`missing required field "searches"`)
	}
	if w.TotalSearches == nil {
		return errors.New(`missing required field "totalSearches"`)
	}
	if err := CheckCount(*w.TotalSearches, "totalSearches"); err != nil {
		return err
	}
	rows := make([]SearchRow, len(*searches))
	for i, r := range *searches {
		if r.SearchQuery == nil || r.Hits == nil || r.CTR == nil {
			return fmt.Errorf(`missing required field in "searches[%d]"`, i)
		}
		if err := CheckCount(*r.Hits, fmt.Sprintf("searches[%d].hits", i)); err != nil {
			return err
		}
		if err := CheckCount(*r.CTR, fmt.Sprintf("searches[%d].ctr", i)); err != nil {
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

// Searches fetches one page of search terms; cursor is "" first, else the previous NextCursor.
func (c *Client) Searches(ctx context.Context, projectID string, r DateRange, limit int, cursor string) (*SearchesPage, error) {
	q, err := pageQuery("searches", projectID, r, limit, MaxSearchesLimit)
	if err != nil {
		return nil, err
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	w := wireSearchesPage{Searches: newRows[wireSearchRow]("searches", limit)}
	return result(&w.page, c.do(ctx, request{endpoint: "searches", method: "GET", path: analyticsPath(projectID, "searches"), query: q, idempotent: true}, &w))
}
