package mockapi

import (
	"net/http"
	"strconv"
	"time"
)

// window is a sliding-window rate limiter: a request is allowed when fewer
// than limit requests were admitted in the last span. It keeps the admitted
// timestamps, which is exact and cheap at the vendor's 100/hour scale. The
// caller holds Server.mu.
type window struct {
	span time.Duration
	hits map[string][]time.Time
}

func newWindow(span time.Duration) window {
	return window{span: span, hits: map[string][]time.Time{}}
}

// admit records a hit for key at now if fewer than limit hits lie in
// (now-span, now]. Otherwise it returns how long until the oldest hit
// leaves the window. A negative limit means unlimited.
func (w *window) admit(key string, limit int, now time.Time) (bool, time.Duration) {
	if limit < 0 {
		return true, 0
	}
	hs := w.hits[key]
	cut := 0
	for cut < len(hs) && !hs[cut].After(now.Add(-w.span)) {
		cut++
	}
	hs = hs[cut:]
	if len(hs) >= limit {
		w.hits[key] = hs
		return false, hs[len(hs)-limit].Add(w.span).Sub(now)
	}
	w.hits[key] = append(hs, now)
	return true, 0
}

// rateLimited builds a 429; with Options.RetryAfter it says in whole
// seconds (rounded up, at least 1) when a slot frees.
func (s *Server) rateLimited(analytics bool, wait time.Duration) *response {
	res := errorResponse(http.StatusTooManyRequests, analytics, "Rate limit exceeded")
	if s.retryAfter {
		secs := int64((wait + time.Second - 1) / time.Second)
		res.header.Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	}
	return res
}
