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

// Counts are view counts split by traffic. Total may exceed Human+AI on
// site totals (traffic the API classes as neither).
type Counts struct {
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

// PageViewRow is the views of one path.
type PageViewRow struct {
	// Path is the label value of the path (see PathLabel): the path the
	// API sent, escaped.
	Path string
	// Raw is the path as the API sent it when that differs from Path
	// (invalid UTF-8 or control characters), else "". A walk tells rows
	// apart by it: two paths that differ only in bytes the escaping writes
	// alike are two rows, whose views it adds together. Never stored in
	// the state file (a walk's rows are told apart before it is saved).
	Raw string `json:"-"`
	Counts
}

// newPageViewRow is the row of path raw, as the API sent it.
func newPageViewRow(raw string, c Counts) PageViewRow {
	r := PageViewRow{Path: EscapeText(raw), Counts: c}
	if r.Path != raw {
		r.Raw = raw
	}
	return r
}

// key is what tells two rows of a walk apart: the path as the API sent it.
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

// DateRange is a half-open interval [From, To): the API's dateTo is
// exclusive. With Days set both bounds are whole UTC days, sent as
// YYYY-MM-DD: the one form that means the same whatever time resolution
// the upstream applies (its spec says of dateTo "Results include dates
// before, but not on, the specified date").
type DateRange struct {
	From, To time.Time
	Days     bool `json:"days,omitempty"`
}

// DayLayout is the API's date-only form.
const DayLayout = "2006-01-02"

// MonthToDate is the month-to-date range at the end of t's UTC day: from
// the 1st of that month up to and including the day, [1st, day+1) in day
// dates. The exporter's month-to-date counters ask for it at any time of
// the day, and backfill asks for it for each past day, so the two count
// the same days.
func MonthToDate(t time.Time) DateRange {
	y, m, d := t.UTC().Date()
	return DateRange{
		From: time.Date(y, m, 1, 0, 0, 0, 0, time.UTC),
		To:   time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC),
		Days: true,
	}
}

// query renders both bounds, always: the API's default range when they are
// omitted is undocumented. RFC 3339 in UTC and YYYY-MM-DD are the
// documented forms.
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
		if err := CheckCount(*v, where+"."+name); err != nil {
			return Counts{}, err
		}
	}
	return Counts{Human: *w.Human, AI: *w.AI, Total: *w.Total}, nil
}

// MaxCount is the largest count accepted from the API: 2^53, beyond which
// a float64 no longer holds every integer. No real page gets near it, so a
// larger (or non-finite) value is a broken answer, not data.
const MaxCount = 1 << 53

// CheckCount refuses a negative, non-finite or absurd count: in an API
// answer, and in the state file the exporter reads back (internal/engine).
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

// wireVisitorsPage is the same shape under the key "visitors".
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

// RowsKind names the two analytics endpoints that answer per-path rows
// with human/ai/total counts and offset paging.
type RowsKind string

// The per-path endpoints.
const (
	Views    RowsKind = "views"
	Visitors RowsKind = "visitors"
)

// Rows fetches one page of the views or visitors endpoint for projectID
// in r; limit must be 1..MaxPageSize and offset >= 0. For visitors,
// Totals.Total is de-duplicated across traffic types, so it is not
// Human + AI.
func (c *Client) Rows(ctx context.Context, kind RowsKind, projectID string, r DateRange, limit, offset int) (*PageViewsPage, error) {
	return c.rows(ctx, kind, projectID, r, limit, offset, false)
}

// rows is Rows; prepaid says the first attempt already passed the gate.
func (c *Client) rows(ctx context.Context, kind RowsKind, projectID string, r DateRange, limit, offset int, prepaid bool) (*PageViewsPage, error) {
	if kind != Views && kind != Visitors {
		return nil, fmt.Errorf("mintlify: unknown rows endpoint %q", kind)
	}
	if projectID == "" {
		return nil, fmt.Errorf("mintlify %s: empty project id", kind)
	}
	if limit < 1 || limit > MaxPageSize {
		return nil, fmt.Errorf("mintlify %s: limit %d out of range 1..%d", kind, limit, MaxPageSize)
	}
	if offset < 0 {
		return nil, fmt.Errorf("mintlify %s: negative offset %d", kind, offset)
	}
	q, err := r.query()
	if err != nil {
		return nil, fmt.Errorf("mintlify %s: %w", kind, err)
	}
	q.Set("limit", strconv.Itoa(limit))
	q.Set("offset", strconv.Itoa(offset))
	req := request{
		endpoint:   string(kind),
		method:     "GET",
		path:       analyticsPath(projectID, string(kind)),
		query:      q,
		idempotent: true,
		prepaid:    prepaid,
	}
	if kind == Visitors {
		w := wireVisitorsPage{Visitors: newRows[wireViewRow]("visitors", limit)}
		if err := c.do(ctx, req, &w); err != nil {
			return nil, err
		}
		return &w.page, nil
	}
	w := wireViewsPage{Views: newRows[wireViewRow]("views", limit)}
	if err := c.do(ctx, req, &w); err != nil {
		return nil, err
	}
	return &w.page, nil
}

func analyticsPath(projectID, endpoint string) string {
	return "/v1/analytics/" + url.PathEscape(projectID) + "/" + endpoint
}
