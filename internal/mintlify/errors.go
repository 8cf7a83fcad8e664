package mintlify

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// APIError is a non-2xx answer: what the upstream said, never the request's credentials.
type APIError struct {
	Endpoint   string        // stable operation name, e.g. "views"
	StatusCode int           // HTTP status
	Message    string        // the body's "error" field, or the status text
	Details    []string      // analytics "details[].message", if any
	RetryAfter time.Duration // from the Retry-After header; valid if HasRetryAfter
	// HasRetryAfter tells a zero Retry-After from none; the upstream documents neither.
	HasRetryAfter bool
	// Documented: the body is one of the API's error shapes, so the API answered, not a gateway.
	Documented bool
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("mintlify %s: HTTP %d", e.Endpoint, e.StatusCode)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if len(e.Details) > 0 {
		s += " (" + strings.Join(e.Details, "; ") + ")"
	}
	if e.HasRetryAfter {
		s += fmt.Sprintf(" [retry after %s]", e.RetryAfter)
	}
	return s
}

// ResponseError is an answer unusable as data: not JSON, cut short, too large, or lacking a required field.
type ResponseError struct {
	Endpoint   string
	StatusCode int
	Reason     string
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("mintlify %s: unusable response (HTTP %d): %s", e.Endpoint, e.StatusCode, e.Reason)
}

func statusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// IsNotFound reports a 404, e.g. an unknown job id or project.
func IsNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// IsUnauthorized reports a 401: missing, unknown or expired key.
func IsUnauthorized(err error) bool { return statusOf(err) == http.StatusUnauthorized }

// IsForbidden reports a 403: a read-only key on a write, an IP outside the allowlist, another org's project.
func IsForbidden(err error) bool { return statusOf(err) == http.StatusForbidden }

// IsBadRequest reports a 400: the request was invalid.
func IsBadRequest(err error) bool { return statusOf(err) == http.StatusBadRequest }

// IsRateLimited reports a 429 and its Retry-After; ok says the header was present.
func IsRateLimited(err error) (limited bool, retryAfter time.Duration, ok bool) {
	var ae *APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusTooManyRequests {
		return true, ae.RetryAfter, ae.HasRetryAfter
	}
	return false, 0, false
}
