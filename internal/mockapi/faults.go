package mockapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// BodyFault selects a way to damage a response body.
type BodyFault int

const (
	// BodyNone leaves the body alone.
	BodyNone BodyFault = iota
	// MalformedJSON sends a body that is not JSON (a cut object with junk).
	MalformedJSON
	// Truncated declares the full Content-Length, sends a valid prefix and
	// closes the connection: the client sees an unexpected EOF.
	Truncated
	// HTML answers with a proxy-style HTML error page (status Fault.Status,
	// or 502), before authentication, as a gateway would.
	HTML
	// Oversize sends a valid JSON object larger than 10 MiB (the real answer
	// plus a huge padding field) to test the client's body cap.
	Oversize
	// MissingField drops a required field from the JSON object: Fault.Field,
	// or by default hasMore (views, visitors, feedback), nextCursor
	// (searches), total (caller-stats), id (jobs), error (error bodies).
	MissingField
)

// OversizeBytes is the padding an Oversize fault adds.
const OversizeBytes = 10<<20 + 1024

// Fault describes misbehaviour to inject. See SetFault.
type Fault struct {
	Endpoint string        // "" = every endpoint, else an Endpoint* name
	Latency  time.Duration // delay before answering; ends early if the client goes away
	// Arrived, if set, gets the endpoint of each request the fault
	// applies to, before any Latency: tests wait on it for a request to
	// be in flight. It is sent without blocking: give it a buffer.
	Arrived chan<- string
	// Status answers with this status and the endpoint's error body instead
	// of the real answer, before authentication and without consuming
	// budget. 0 = none.
	Status     int
	RetryAfter string // with Status: Retry-After value to send ("" = none)
	Body       BodyFault
	Field      string // MissingField: the field to drop ("" = default)
	// DuplicateAcrossPages repeats the last row of page k as the first row
	// of page k+1 (same counts), for offset-paged endpoints.
	DuplicateAcrossPages bool
	// EndlessHasMore keeps hasMore true; pages past the end are empty.
	EndlessHasMore bool
	// EndlessRows (views) fills every page past the real rows with this
	// many paths never seen before, and hasMore true, for ever: a hostile
	// upstream. Above the request's limit it also breaks the page-size
	// contract.
	EndlessRows int
	// RepeatPages answers every offset past the end with the first page's
	// rows again, hasMore true: an upstream that loops for ever.
	RepeatPages bool
	// The cursor faults, of the cursor-paged endpoints (conversations,
	// feedback entries); see cursorAnswer.
	//
	// PageServedTwice: the first page asked for with a cursor (page 2)
	// gives that same cursor as its nextCursor, once for the fault's life,
	// so a client that follows it reads page 2 twice.
	PageServedTwice bool
	// WidenedRange: the rows of the day before dateFrom and of the day
	// after dateTo (up to now) are served too.
	WidenedRange bool
	// RepeatingCursor: every page asked for with a cursor gives that same
	// cursor as its nextCursor, with hasMore true, for ever.
	RepeatingCursor bool
	// CyclingCursor: every page asked for with a cursor other than the
	// first page's nextCursor (A) points back at A, with hasMore true:
	// A→B→A for ever.
	CyclingCursor bool
	// RefusedCursors: this many pages asked for with a cursor are
	// answered 400, as by an upstream whose cursors expired; -1 for
	// every one.
	RefusedCursors int
	// ExtraRows are appended to the first page (offset 0) of views and
	// visitors, e.g. a path with invalid UTF-8 or a 10 kB path. They are
	// written byte for byte.
	ExtraRows []Row
	// Remaining applies the fault to this many matching requests, then
	// removes it. 0 = until cleared.
	Remaining int

	state *faultState // where the fault's own bookkeeping lives
}

type faultState struct {
	f Fault
	// servedTwice: PageServedTwice has served its page twice.
	servedTwice bool
	// refused counts the cursors RefusedCursors refused.
	refused int
}

// SetFault installs f, replacing any fault for the same Endpoint. A fault
// for a specific endpoint wins over an all-endpoints ("") fault.
func (s *Server) SetFault(f Fault) {
	f.ExtraRows = append([]Row(nil), f.ExtraRows...)
	s.mu.Lock()
	s.faults[f.Endpoint] = &faultState{f: f}
	s.mu.Unlock()
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = map[string]*faultState{}
	s.mu.Unlock()
}

// Faults lists the installed faults (with their Remaining counts).
func (s *Server) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Fault, 0, len(s.faults))
	for _, st := range s.faults {
		out = append(out, st.f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Endpoint < out[j].Endpoint })
	return out
}

// takeFault picks the fault for endpoint and charges one use against its
// Remaining count.
func (s *Server) takeFault(endpoint string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := endpoint
	st := s.faults[key]
	if st == nil {
		key = ""
		st = s.faults[key]
	}
	if st == nil {
		return nil
	}
	f := st.f
	f.state = st
	if st.f.Remaining > 0 {
		st.f.Remaining--
		if st.f.Remaining == 0 {
			delete(s.faults, key)
		}
	}
	return &f
}

// waitLatency sleeps for d on a real timer (it models network delay, so
// the injected clock is not used) and reports false if ctx ended first.
func waitLatency(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

const htmlPage = `<html>
<head><title>%d Bad Gateway</title></head>
<body>
<center><h1>%d Bad Gateway</h1></center>
<hr><center>cloudflare</center>
</body>
</html>
`

// early returns the answer for faults that stand in front of the
// application (Status, HTML), or nil.
func (f *Fault) early(rt route) *response {
	if f.Body == HTML {
		st := f.Status
		if st == 0 {
			st = http.StatusBadGateway
		}
		body := strings.ReplaceAll(htmlPage, "%d", strconv.Itoa(st))
		return newResponse(st, "text/html; charset=utf-8", []byte(body))
	}
	if f.Status == 0 {
		return nil
	}
	res := errorResponse(f.Status, rt.analytics, http.StatusText(f.Status))
	if f.RetryAfter != "" {
		res.header.Set("Retry-After", f.RetryAfter)
	}
	return res
}

// mangle applies a body fault to a finished answer.
func (f *Fault) mangle(rt route, res *response) *response {
	switch f.Body {
	case MalformedJSON:
		cut := res.body[:len(res.body)/2]
		res.body = append(append([]byte{}, cut...), []byte(`,,"oops":}`)...)
	case Truncated:
		full := len(res.body)
		res.body = res.body[:full/2]
		res.declaredLen = full
	case Oversize:
		var b bytes.Buffer
		b.Grow(len(res.body) + OversizeBytes + 32)
		b.WriteString(`{"_padding":"`)
		b.Write(bytes.Repeat([]byte("x"), OversizeBytes))
		b.WriteString(`"`)
		if rest := bytes.TrimPrefix(bytes.TrimSpace(res.body), []byte("{")); len(bytes.TrimSpace(rest)) > 1 {
			b.WriteString(",")
		}
		b.Write(bytes.TrimPrefix(bytes.TrimSpace(res.body), []byte("{")))
		res.body = b.Bytes()
	case MissingField:
		field := f.Field
		if field == "" {
			field = defaultMissing(rt, res.status)
		}
		res.body = dropField(res.body, field)
	}
	return res
}

func defaultMissing(rt route, status int) string {
	if status >= 300 {
		return "error"
	}
	switch rt.endpoint {
	case EndpointSearches:
		return "nextCursor"
	case EndpointCallerStats:
		return "total"
	case EndpointCreateJob, EndpointGetJob, EndpointSendMessage:
		return "id"
	}
	return "hasMore"
}

// dropField removes a top-level key from a JSON object, keeping every other
// value byte for byte (json.RawMessage is not re-validated as UTF-8).
func dropField(body []byte, field string) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return body
	}
	delete(m, field)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, m[k]...)
	}
	return append(b, '}')
}

// cursorPage is one page of a cursor-paged endpoint: its rows, the
// cursor of the next page and hasMore.
type cursorPage struct {
	rows any
	next *string
	more bool
}

// cursorAnswer is the answer of a cursor-paged endpoint for [from, to)
// from cursor, with the call's cursor faults: page builds a page of the
// endpoint's data. The rows go under field.
func (s *Server) cursorAnswer(c *call, field string, from, to time.Time, cursor string, page func(from, to time.Time, cursor string) cursorPage) *response {
	f := c.fault
	if f == nil {
		f = &Fault{}
	}
	if f.WidenedRange {
		from, to = from.AddDate(0, 0, -1), to.AddDate(0, 0, 1)
		if to.After(c.now) {
			to = c.now
		}
	}
	if cursor != "" && s.refuseCursor(f) {
		return errorResponse(http.StatusBadRequest, true, "Invalid cursor")
	}
	p := page(from, to, cursor)
	if cursor != "" {
		switch {
		case f.RepeatingCursor:
			p.next, p.more = &cursor, true
		case f.CyclingCursor:
			if first := page(from, to, "").next; first != nil && *first != cursor {
				p.next, p.more = first, true
			}
		case f.PageServedTwice && s.firstTime(f):
			p.next, p.more = &cursor, true
		}
	}
	// The rows' key is the endpoint's: the object is written in the
	// vendor's order, rows first.
	rows := jsonResponse(http.StatusOK, p.rows).body
	if string(rows) == "null" {
		rows = []byte("[]")
	}
	tail := jsonResponse(http.StatusOK, struct {
		NextCursor *string `json:"nextCursor"`
		HasMore    bool    `json:"hasMore"`
	}{p.next, p.more}).body
	b := append(appendString([]byte{'{'}, field), ':')
	b = append(append(append(b, rows...), ','), tail[1:]...)
	return newResponse(http.StatusOK, "application/json; charset=utf-8", b)
}

// firstTime reports whether PageServedTwice has not served its page
// twice yet, and marks it served.
func (s *Server) firstTime(f *Fault) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.state == nil || f.state.servedTwice {
		return false
	}
	f.state.servedTwice = true
	return true
}

// refuseCursor reports whether RefusedCursors refuses this cursor, and
// counts it.
func (s *Server) refuseCursor(f *Fault) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.state == nil || f.RefusedCursors == 0 || (f.RefusedCursors > 0 && f.state.refused >= f.RefusedCursors) {
		return false
	}
	f.state.refused++
	return true
}
