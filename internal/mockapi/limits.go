package mockapi

import (
	"net/http"
	"strconv"
	"time"
)

// window keeps admitted timestamps: exact and cheap at 100/hour. The caller holds Server.mu.
type window struct {
	span time.Duration
	hits map[string][]time.Time
}

func newWindow(span time.Duration) window {
	return window{span: span, hits: map[string][]time.Time{}}
}

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

// rateLimited's Retry-After is whole seconds, rounded up, at least 1.
func (s *Server) rateLimited(analytics bool, wait time.Duration) *response {
	res := errorResponse(http.StatusTooManyRequests, analytics, "Rate limit exceeded")
	if s.retryAfter {
		secs := int64((wait + time.Second - 1) / time.Second)
		res.header.Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	}
	return res
}
