package mintlify

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// APIError is an answer from the API with a non-2xx status. It carries what
// the upstream said, never the request's credentials.
type APIError struct {
	Endpoint   string        // stable operation name, e.g. "views"
	StatusCode int           // HTTP status
	Message    string        // the body's "error" field, or the status text
	Details    []string      // analytics "details[].message", if any
	RetryAfter time.Duration // from the Retry-After header; valid if HasRetryAfter
	// HasRetryAfter tells a Retry-After of zero from an absent header; the
	// upstream documents neither, so callers must cope with both.
	HasRetryAfter bool
	// Documented: the body is exactly one of the API's documented JSON
	// error shapes, so the API itself answered, not a gateway in front.
	Documented bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mintlify %s: HTTP %d", e.Endpoint, e.StatusCode)
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Details) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(e.Details, "; "))
		b.WriteString(")")
	}
	if e.HasRetryAfter {
		fmt.Fprintf(&b, " [retry after %s]", e.RetryAfter)
	}
	return b.String()
}

// ResponseError is a response that could not be used as data: a body that
// is not JSON, is cut short, is too large, or lacks a required field.
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

// IsForbidden reports a 403: a read-only key on a write, a request from
// outside the key's IP allowlist, or a project of another organization.
func IsForbidden(err error) bool { return statusOf(err) == http.StatusForbidden }

// IsBadRequest reports a 400: the request was invalid.
func IsBadRequest(err error) bool { return statusOf(err) == http.StatusBadRequest }

// IsRateLimited reports a 429. retryAfter is the Retry-After duration and ok
// says whether the header was present.
func IsRateLimited(err error) (limited bool, retryAfter time.Duration, ok bool) {
	var ae *APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusTooManyRequests {
		return true, ae.RetryAfter, ae.HasRetryAfter
	}
	return false, 0, false
}
