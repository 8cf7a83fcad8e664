package mintlify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"
)

// MaxPageSize is the largest "limit" the analytics API documents.
const MaxPageSize = 250

// Counts are view counts by traffic; a site total's Total may exceed Human+AI (traffic classed as neither).
type Counts struct {
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

// PageViewRow is the views of one path.
type PageViewRow struct {
	Path string `json:"path"`
	// Raw is the path as sent when it differs from Path, so paths escaped alike are told apart; never stored.
	Raw string `json:"-"`
	Counts
}

func newPageViewRow(raw string, c Counts) PageViewRow {
	r := PageViewRow{Path: EscapeText(raw), Counts: c}
	if r.Path != raw {
		r.Raw = raw
	}
	return r
}

func (r PageViewRow) key() string {
	if r.Raw != "" {
		return r.Raw
	}
	return r.Path
}

// PageViewsPage is one page of GET /v1/analytics/{projectId}/views.
type PageViewsPage struct {
	Totals  Counts
	Rows    []PageViewRow
	HasMore bool
}

// DateRange is [From, To): the API's dateTo is exclusive. With Days set both are sent as YYYY-MM-DD, the one
// form that means the same whatever time resolution the upstream applies.
type DateRange struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	Days bool      `json:"days,omitempty"`
}

// DayLayout is the API's date-only form.
const DayLayout = "2006-01-02"

// MonthToDate is [1st, day+1) of t's UTC day, so the exporter's month counters (at any hour) and the
// backfill (for each past day) count the same days.
func MonthToDate(t time.Time) DateRange {
	y, m, d := t.UTC().Date()
	return DateRange{
		From: time.Date(y, m, 1, 0, 0, 0, 0, time.UTC),
		To:   time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC),
		Days: true,
	}
}

// query always renders both bounds: the API's default range is undocumented.
func (r DateRange) query() (url.Values, error) {
	if r.From.IsZero() || r.To.IsZero() {
		return nil, errors.New("date range needs both From and To")
	}
	if !r.From.Before(r.To) {
		return nil, fmt.Errorf("empty date range: from %s is not before to %s", r.From.UTC().Format(time.RFC3339), r.To.UTC().Format(time.RFC3339))
	}
	layout := time.RFC3339
	if r.Days {
		for _, t := range []time.Time{r.From, r.To} {
			if u := t.UTC(); !u.Equal(u.Truncate(24 * time.Hour)) {
				return nil, fmt.Errorf("day range bound %s is not midnight UTC", u.Format(time.RFC3339))
			}
		}
		layout = DayLayout
	}
	q := url.Values{}
	q.Set("dateFrom", r.From.UTC().Format(layout))
	q.Set("dateTo", r.To.UTC().Format(layout))
	return q, nil
}

// wire types: pointers tell a missing field (an error) from zero.
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
		if err := CheckCount(*v, where+"."+name); err != nil {
			return Counts{}, err
		}
	}
	return Counts{Human: *w.Human, AI: *w.AI, Total: *w.Total}, nil
}

// MaxCount is 2^53, past which a float64 loses integers: a larger or non-finite count is a broken answer.
const MaxCount = 1 << 53

// CheckCount refuses a negative, non-finite or absurd count, from the API or the state file.
func CheckCount(v float64, where string) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("non-finite count in %q", where)
	case v < 0:
		return fmt.Errorf("negative count in %q", where)
	case v > MaxCount:
		return fmt.Errorf("count %g in %q is above 2^53", v, where)
	}
	return nil
}

type wireViewRow struct {
	Path *rawText `json:"path"`
	wireCounts
}

type wireViewsPage struct {
	Totals  *wireCounts            `json:"totals"`
	Views   *rowsUpTo[wireViewRow] `json:"views"`
	HasMore *bool                  `json:"hasMore"`

	page PageViewsPage // filled by validate
}

func (w *wireViewsPage) validate() (err error) {
	w.page, err = rowsPage("views", w.Totals, w.Views.present(), w.HasMore)
	return err
}

type wireVisitorsPage struct {
	Totals   *wireCounts            `json:"totals"`
	Visitors *rowsUpTo[wireViewRow] `json:"visitors"`
	HasMore  *bool                  `json:"hasMore"`

	page PageViewsPage
}

func (w *wireVisitorsPage) validate() (err error) {
	w.page, err = rowsPage("visitors", w.Totals, w.Visitors.present(), w.HasMore)
	return err
}

func rowsPage(key string, totals *wireCounts, in *[]wireViewRow, hasMore *bool) (PageViewsPage, error) {
	t, err := totals.counts("totals")
	if err != nil {
		return PageViewsPage{}, err
	}
	if in == nil {
		return PageViewsPage{}, fmt.Errorf("missing required field %q", key)
	}
	if hasMore == nil {
		return PageViewsPage{}, errors.New(`missing required field "hasMore"`)
	}
	rows := make([]PageViewRow, len(*in))
	for i := range *in {
		r := &(*in)[i]
		if r.Path == nil {
			return PageViewsPage{}, fmt.Errorf(`missing required field "%s[%d].path"`, key, i)
		}
		c, err := r.wireCounts.counts(fmt.Sprintf("%s[%d]", key, i))
		if err != nil {
			return PageViewsPage{}, err
		}
		rows[i] = newPageViewRow(string(*r.Path), c)
	}
	return PageViewsPage{Totals: t, Rows: rows, HasMore: *hasMore}, nil
}

// RowsEndpoint is a per-path endpoint with human/ai/total counts and offset paging.
type RowsEndpoint string

// The per-path endpoints.
const (
	Views    RowsEndpoint = "views"
	Visitors RowsEndpoint = "visitors"
)

// Rows fetches one page of views or visitors; a visitors Totals.Total is de-duplicated, not Human+AI.
func (c *Client) Rows(ctx context.Context, endpoint RowsEndpoint, projectID string, r DateRange, limit, offset int) (*PageViewsPage, error) {
	return c.rows(ctx, endpoint, projectID, r, limit, offset, false)
}

func (c *Client) rows(ctx context.Context, endpoint RowsEndpoint, projectID string, r DateRange, limit, offset int, prepaid bool) (*PageViewsPage, error) {
	if endpoint != Views && endpoint != Visitors {
		return nil, fmt.Errorf("mintlify: unknown rows endpoint %q", endpoint)
	}
	if projectID == "" {
		return nil, fmt.Errorf("mintlify %s: empty project id", endpoint)
	}
	if limit < 1 || limit > MaxPageSize {
		return nil, fmt.Errorf("mintlify %s: limit %d out of range 1..%d", endpoint, limit, MaxPageSize)
	}
	if offset < 0 {
		return nil, fmt.Errorf("mintlify %s: negative offset %d", endpoint, offset)
	}
	q, err := r.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify %s: %w", endpoint, err)
	}
	q.Set("limit", strconv.Itoa(limit))
	q.Set("offset", strconv.Itoa(offset))
	req := request{
		endpoint:   string(endpoint),
		method:     "GET",
		path:       analyticsPath(projectID, string(endpoint)),
		query:      q,
		idempotent: true,
		prepaid:    prepaid,
	}
	if endpoint == Visitors {
		w := wireVisitorsPage{Visitors: newRows[wireViewRow]("visitors", limit)}
		return result(&w.page, c.do(ctx, req, &w))
	}
	w := wireViewsPage{Views: newRows[wireViewRow]("views", limit)}
	return result(&w.page, c.do(ctx, req, &w))
}

func analyticsPath(projectID, endpoint string) string {
	return "/v1/analytics/" + url.PathEscape(projectID) + "/" + endpoint
}
