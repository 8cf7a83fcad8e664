package mintlify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// Page-size bounds the analytics API documents for "limit".
const (
	MaxPageSize     = 250
	DefaultPageSize = 50
)

// Counts are view counts split by traffic. Total may exceed Human+AI on
// site totals (traffic the API classes as neither).
type Counts struct {
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

// PageViewRow is the views of one path.
type PageViewRow struct {
	Path string
	Counts
}

// PageViewsPage is one page of GET /v1/analytics/{projectId}/views.
type PageViewsPage struct {
	Totals  Counts
	Rows    []PageViewRow
	HasMore bool
}

// DateRange is a half-open interval [From, To): the API's dateTo is
// exclusive.
type DateRange struct {
	From, To time.Time
}

// query renders both bounds, always: the API's default range when they are
// omitted is undocumented. RFC 3339 in UTC is one of the documented forms.
func (r DateRange) query() (url.Values, error) {
	if r.From.IsZero() || r.To.IsZero() {
		return nil, errors.New("date range needs both From and To")
	}
	if !r.From.Before(r.To) {
		return nil, fmt.Errorf("empty date range: from %s is not before to %s", r.From.UTC().Format(time.RFC3339), r.To.UTC().Format(time.RFC3339))
	}
	q := url.Values{}
	q.Set("dateFrom", r.From.UTC().Format(time.RFC3339))
	q.Set("dateTo", r.To.UTC().Format(time.RFC3339))
	return q, nil
}

// wire types: pointers tell "missing" from zero so a 200 without a required
// field is an error, not a page of zeros.
type wireCounts struct {
	Human *float64 `json:"human"`
	AI    *float64 `json:"ai"`
	Total *float64 `json:"total"`
}

func (w *wireCounts) counts(where string) (Counts, error) {
	if w == nil {
		return Counts{}, fmt.Errorf("missing required field %q", where)
	}
	for name, v := range map[string]*float64{"human": w.Human, "ai": w.AI, "total": w.Total} {
		if v == nil {
			return Counts{}, fmt.Errorf("missing required field %q", where+"."+name)
		}
		if *v < 0 {
			return Counts{}, fmt.Errorf("negative count in %q", where+"."+name)
		}
	}
	return Counts{Human: *w.Human, AI: *w.AI, Total: *w.Total}, nil
}

type wireViewRow struct {
	Path *string `json:"path"`
	wireCounts
}

type wireViewsPage struct {
	Totals  *wireCounts    `json:"totals"`
	Views   *[]wireViewRow `json:"views"`
	HasMore *bool          `json:"hasMore"`

	page PageViewsPage // filled by validate
}

func (w *wireViewsPage) validate() error {
	totals, err := w.Totals.counts("totals")
	if err != nil {
		return err
	}
	if w.Views == nil {
		return errors.New(`missing required field "views"`)
	}
	if w.HasMore == nil {
		return errors.New(`missing required field "hasMore"`)
	}
	rows := make([]PageViewRow, len(*w.Views))
	for i := range *w.Views {
		r := &(*w.Views)[i]
		if r.Path == nil {
			return fmt.Errorf(`missing required field "views[%d].path"`, i)
		}
		c, err := r.wireCounts.counts(fmt.Sprintf("views[%d]", i))
		if err != nil {
			return err
		}
		rows[i] = PageViewRow{Path: *r.Path, Counts: c}
	}
	w.page = PageViewsPage{Totals: totals, Rows: rows, HasMore: *w.HasMore}
	return nil
}

// PageViews fetches one page of per-path views for projectID in r.
// limit must be 1..MaxPageSize and offset >= 0.
func (c *Client) PageViews(ctx context.Context, projectID string, r DateRange, limit, offset int) (*PageViewsPage, error) {
	if projectID == "" {
		return nil, errors.New("mintlify views: empty project id")
	}
	if limit < 1 || limit > MaxPageSize {
		return nil, fmt.Errorf("mintlify views: limit %d out of range 1..%d", limit, MaxPageSize)
	}
	if offset < 0 {
		return nil, fmt.Errorf("mintlify views: negative offset %d", offset)
	}
	q, err := r.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify views: %w", err)
	}
	q.Set("limit", strconv.Itoa(limit))
	q.Set("offset", strconv.Itoa(offset))
	var w wireViewsPage
	err = c.do(ctx, request{
		endpoint:   "views",
		method:     "GET",
		path:       "/v1/analytics/" + url.PathEscape(projectID) + "/views",
		query:      q,
		idempotent: true,
	}, &w)
	if err != nil {
		return nil, err
	}
	return &w.page, nil
}
