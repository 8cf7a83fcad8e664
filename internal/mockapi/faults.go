package mockapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// BodyFault selects a way to damage a response body.
type BodyFault int

const (
	BodyNone BodyFault = iota
	MalformedJSON
	// Truncated declares the full Content-Length and closes early: the client sees an unexpected EOF.
	Truncated
	// HTML is a gateway's error page (Fault.Status, or 502), before authentication.
	HTML
	// Oversize pads a valid answer past 10 MiB, for the client's body cap.
	Oversize
	// MissingField drops Fault.Field, or by default the endpoint's paging field, total, id or error.
	MissingField
)

// OversizeBytes is the padding an Oversize fault adds.
const OversizeBytes = 10<<20 + 1024

// Fault describes misbehaviour to inject. See SetFault.
type Fault struct {
	Endpoint string        // "" = every endpoint, else an Endpoint* name
	Latency  time.Duration // delay before answering; ends early if the client goes away
	// Arrived gets each request's endpoint before Latency, without blocking: give it a buffer.
	Arrived chan<- string
	// Status answers with this status before authentication, without using budget.
	Status     int
	RetryAfter string // with Status: Retry-After value to send ("" = none)
	Body       BodyFault
	Field      string // MissingField: the field to drop ("" = default)
	// DuplicateAcrossPages repeats page k's last row first on page k+1 (offset paging).
	DuplicateAcrossPages bool
	EndlessHasMore       bool // pages past the end are empty
	// EndlessRows fills views pages past the end with this many new paths, hasMore true, for ever.
	EndlessRows int
	// RepeatPages answers every offset past the end with the first page again, for ever.
	RepeatPages bool
	// Cursor faults (see cursorAnswer). PageServedTwice: page 2 names its own cursor next, once.
	PageServedTwice bool
	// WidenedRange also serves the day before dateFrom and the day after dateTo.
	WidenedRange bool
	// RepeatingCursor: every cursor page names itself next, hasMore true, for ever.
	RepeatingCursor bool
	// CyclingCursor: every cursor page but the first's next (A) points back at A: A→B→A for ever.
	CyclingCursor bool
	// RefusedCursors: this many cursor pages are answered 400 (expired cursors); -1 for every one.
	RefusedCursors int
	// ExtraRows are appended byte for byte to the first views and visitors page (bad UTF-8, 10 kB).
	ExtraRows []Row
	// Remaining: this many matching requests, then the fault is removed; 0 = until cleared.
	Remaining int

	state *faultState // where the fault's own bookkeeping lives
}

type faultState struct {
	f           Fault
	servedTwice bool
	// refused counts the cursors RefusedCursors refused.
	refused int
}

// SetFault replaces any fault for the same Endpoint; a specific endpoint's wins over ""'s.
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

// Faults lists the installed faults with their Remaining counts.
func (s *Server) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Fault, 0, len(s.faults))
	for _, st := range s.faults {
		out = append(out, st.f)
	}
	slices.SortFunc(out, func(a, b Fault) int { return strings.Compare(a.Endpoint, b.Endpoint) })
	return out
}

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

// waitLatency uses a real timer: it models network delay, not the injected clock.
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

// early answers for faults in front of the application (Status, HTML), or nil.
func (f *Fault) early(rt route) *response {
	if f.Body == HTML {
		st := cmp.Or(f.Status, http.StatusBadGateway)
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

func (f *Fault) mangle(rt route, res *response) *response {
	switch f.Body {
	case MalformedJSON:
		res.body = slices.Concat(res.body[:len(res.body)/2], []byte(`,,"oops":}`))
	case Truncated:
		full := len(res.body)
		res.body = res.body[:full/2]
		res.declaredLen = full
	case Oversize:
		rest := bytes.TrimPrefix(bytes.TrimSpace(res.body), []byte("{"))
		sep := `"`
		if len(bytes.TrimSpace(rest)) > 1 {
			sep = `",`
		}
		res.body = slices.Concat([]byte(`{"_padding":"`), bytes.Repeat([]byte("x"), OversizeBytes), []byte(sep), rest)
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

// dropField keeps every other value byte for byte (RawMessage is not re-validated as UTF-8).
func dropField(body []byte, field string) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return body
	}
	delete(m, field)
	b := []byte{'{'}
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, m[k]...)
	}
	return append(b, '}')
}

type cursorPage struct {
	rows any
	next *string
	more bool
}

// cursorAnswer is a cursor-paged endpoint's answer with the call's cursor faults.
func (s *Server) cursorAnswer(c *call, field string, from, to time.Time, cursor string, page func(from, to time.Time, cursor string) cursorPage) *response {
	f := c.fault
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
	// The vendor's order: rows first.
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
