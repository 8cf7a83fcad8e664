package mockapi

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// defaultRange: the vendor documents no default, so clients must always send both dates.
const defaultRange = 30 * 24 * time.Hour

// parseDate takes YYYY-MM-DD or RFC 3339; an unescaped "+" decodes to a space and is refused.
func parseDate(v string) (time.Time, error) {
	if len(v) == len("2006-01-02") {
		return time.Parse("2006-01-02", v)
	}
	return time.Parse(time.RFC3339Nano, v)
}

// validator reports every problem in details[], as a schema validator does.
type validator struct {
	q        url.Values
	problems []string
}

func (v *validator) failf(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

func (v *validator) dateRange(now time.Time) (from, to time.Time) {
	to, from = now, now.Add(-defaultRange)
	var gotFrom bool
	if s, ok := v.q["dateFrom"]; ok {
		t, err := parseDate(s[0])
		if err != nil {
			v.failf("dateFrom: invalid date %q, expected YYYY-MM-DD or ISO 8601 date-time", s[0])
		}
		from, gotFrom = t, true
	}
	if s, ok := v.q["dateTo"]; ok {
		t, err := parseDate(s[0])
		if err != nil {
			v.failf("dateTo: invalid date %q, expected YYYY-MM-DD or ISO 8601 date-time", s[0])
		}
		to = t
		if !gotFrom {
			from = to.Add(-defaultRange)
		}
	}
	if len(v.problems) == 0 && from.After(to) {
		v.failf("dateFrom must not be after dateTo")
	}
	return from, to
}

// integer with wholeNumber accepts "10.0", for parameters the vendor types as number.
func (v *validator) integer(name string, def, lo, hi int, wholeNumber bool) int {
	s, ok := v.q[name]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s[0])
	if err != nil && wholeNumber {
		if f, ferr := strconv.ParseFloat(s[0], 64); ferr == nil && f == float64(int(f)) {
			n, err = int(f), nil
		}
	}
	switch {
	case err != nil:
		v.failf("%s: expected an integer, got %q", name, s[0])
	case n < lo || n > hi:
		if hi == maxInt {
			v.failf("%s: must be at least %d", name, lo)
		} else {
			v.failf("%s: must be between %d and %d", name, lo, hi)
		}
	}
	return n
}

const maxInt = int(^uint(0) >> 1)

func (s *Server) analyticsEndpoint(c *call) *response {
	v := &validator{q: c.r.URL.Query()}
	from, to := v.dateRange(c.now)
	s.mu.Lock()
	refuseFuture := s.refuseFuture
	s.mu.Unlock()
	if refuseFuture && len(v.problems) == 0 && to.After(c.now) {
		v.failf("dateTo: must not be in the future")
	}
	answer := s.answerFor(c, v)
	if len(v.problems) > 0 {
		return errorResponse(http.StatusBadRequest, true, "Invalid query parameters", v.problems...)
	}
	s.mu.Lock()
	ok, wait := s.analytics.admit(c.key.Org, s.analyticsCap, c.now)
	s.mu.Unlock()
	if !ok {
		return s.rateLimited(true, wait)
	}
	// Nothing has happened after now: a range into the future counts up to now.
	if to.After(c.now) {
		to = c.now
	}
	return answer(from, to)
}

func (s *Server) answerFor(c *call, v *validator) func(from, to time.Time) *response {
	switch c.rt.endpoint {
	case EndpointConversations:
		limit := v.integer("limit", 100, 1, 1000, true)
		var cursor string
		if cs, ok := v.q["cursor"]; ok {
			if cursor = cs[0]; !validULID(cursor) {
				v.failf("cursor: invalid pagination cursor, expected a ULID")
			}
		}
		s.mu.Lock()
		site := s.withFix(c.rt.project, c.site, c.now)
		s.mu.Unlock()
		return func(from, to time.Time) *response {
			return s.cursorAnswer(c, "conversations", from, to, cursor, func(from, to time.Time, cursor string) cursorPage {
				return conversationsPage(site, from, to, limit, cursor)
			})
		}
	case EndpointFeedbackEntries:
		fq := feedbackParams(v)
		fq.limit = v.integer("limit", 50, 1, 100, true)
		cursor := v.q.Get("cursor")
		return func(from, to time.Time) *response {
			return s.cursorAnswer(c, "feedback", from, to, cursor, func(from, to time.Time, cursor string) cursorPage {
				return feedbackPage(c.site, from, to, fq, cursor)
			})
		}
	}
	pq := s.pageQuery(c.rt.endpoint, v)
	return func(from, to time.Time) *response {
		return analyticsAnswer(c.rt.endpoint, c.site.compute(from, to), pq, c.fault)
	}
}

type pageQuery struct{ limit, offset, cursor int }

func (s *Server) pageQuery(endpoint string, v *validator) pageQuery {
	var pq pageQuery
	switch endpoint {
	case EndpointViews, EndpointVisitors:
		pq.limit = v.integer("limit", min(50, s.maxPage), 1, s.maxPage, false)
		pq.offset = v.integer("offset", 0, 0, maxInt, false)
	case EndpointFeedback:
		pq.limit = v.integer("limit", 10, 1, 100, true)
		pq.offset = v.integer("offset", 0, 0, maxInt, false) // undocumented; hasMore implies it
		if src, ok := v.q["source"]; ok && !slices.Contains(feedbackSources, src[0]) {
			v.failf("source: invalid value %q", src[0])
		}
	case EndpointSearches:
		pq.limit = v.integer("limit", 50, 1, 100, true)
		if cs, ok := v.q["cursor"]; ok {
			var good bool
			if pq.cursor, good = decodeCursor(cs[0]); !good {
				v.failf("cursor: invalid pagination cursor")
			}
		}
	}
	return pq
}

func analyticsAnswer(endpoint string, d *computed, pq pageQuery, f *Fault) *response {
	switch endpoint {
	case EndpointViews:
		if f.EndlessRows > 0 && pq.offset >= len(d.views) {
			return newResponse(http.StatusOK, "application/json; charset=utf-8", endlessBody(d.viewTotals, pq.offset, f.EndlessRows))
		}
		rows, more := pageOf(d.views, pq.offset, pq.limit, f)
		more = more || f.EndlessRows > 0
		return newResponse(http.StatusOK, "application/json; charset=utf-8", rowsBody("views", d.viewTotals, rows, more))
	case EndpointVisitors:
		rows, more := pageOf(d.visitors, pq.offset, pq.limit, f)
		return newResponse(http.StatusOK, "application/json; charset=utf-8", rowsBody("visitors", d.visitorTotals, rows, more))
	case EndpointFeedback:
		rows, more := pageOf(d.feedback, pq.offset, pq.limit, &Fault{DuplicateAcrossPages: f.DuplicateAcrossPages, EndlessHasMore: f.EndlessHasMore})
		return jsonResponse(http.StatusOK, struct {
			Feedback []FeedbackRow `json:"feedback"`
			HasMore  bool          `json:"hasMore"`
		}{nonNil(rows), more})
	case EndpointSearches:
		rows, more := pageOf(d.searches, pq.cursor, pq.limit, &Fault{})
		var next *string
		if more {
			n := encodeCursor(pq.cursor + pq.limit)
			next = &n
		}
		return jsonResponse(http.StatusOK, struct {
			Searches      []SearchRow `json:"searches"`
			TotalSearches int64       `json:"totalSearches"`
			NextCursor    *string     `json:"nextCursor"`
		}{nonNil(rows), d.totalSearches, next})
	default: // EndpointCallerStats
		return jsonResponse(http.StatusOK, d.callers)
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// pageOf never puts more than limit rows on a page (the API's contract): DuplicateAcrossPages
// starts page k k rows early, as when rows shift during paging, and ExtraRows push rows later.
func pageOf[T any](all []T, offset, limit int, f *Fault) ([]T, bool) {
	if rows, ok := any(&all).(*[]Row); ok && len(f.ExtraRows) > 0 && limit > 0 {
		first := max(min(limit-len(f.ExtraRows), len(*rows)), 0)
		merged := make([]Row, 0, len(*rows)+len(f.ExtraRows))
		merged = append(merged, (*rows)[:first]...)
		merged = append(merged, f.ExtraRows...)
		*rows = append(merged, (*rows)[first:]...)
	}
	if f.RepeatPages && offset >= len(all) {
		offset = 0
	}
	start := min(offset, len(all))
	if f.DuplicateAcrossPages && offset > 0 && limit > 0 {
		start = min(offset-offset/limit, len(all))
	}
	end := min(start+limit, len(all))
	page := make([]T, 0, end-start)
	page = append(page, all[start:end]...)
	return page, end < len(all) || f.EndlessHasMore || f.RepeatPages
}

// Cursors are opaque to clients; the mock's are base64url("o:<offset>").
func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.Itoa(offset)))
}

func decodeCursor(s string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	rest, ok := strings.CutPrefix(string(b), "o:")
	n, nerr := strconv.Atoi(rest)
	return n, err == nil && ok && nerr == nil && n >= 0
}
