package mintlify

import (
	"context"
	"errors"
	"net"
	"net/http"
)

// Kind is what a failed call's error says happened, as far as what to do next depends on it.
type Kind int

// The kinds of failure, in the order Classify tries them.
const (
	KindNone         Kind = iota // no error
	KindRateLimited              // 429: the organization's (analytics) or project's (agent) hourly limit
	KindUnauthorized             // 401: unknown, revoked or expired key
	KindForbidden                // 403: missing scope, IP allowlist, another organization's project
	KindServerError              // a 5xx answer
	KindBadResponse              // an answer that could not be used (*ResponseError): not JSON, invalid, a redirect, too large, cut short
	KindTimeout                  // no answer in time
	KindNotFound                 // 404: unknown project or job
	KindBadRequest               // 400: the API refused the request's arguments
	KindOther                    // any other answer (e.g. 409), a connection error, a call stopped by its gate or its context
)

// Failure reasons: the reason label of mintlify_refresh_failures_total (docs/metrics.md).
const (
	ReasonRateLimited  = "rate_limited"
	ReasonUnauthorized = "unauthorized"
	ReasonForbidden    = "forbidden"
	ReasonServerError  = "server_error"
	ReasonBadResponse  = "bad_response"
	ReasonTimeout      = "timeout"
	ReasonOther        = "other"
)

// Reasons lists every failure reason, in the order of docs/metrics.md.
var Reasons = []string{ReasonRateLimited, ReasonUnauthorized, ReasonForbidden, ReasonServerError, ReasonBadResponse, ReasonTimeout, ReasonOther}

// Class is the one classification of a Client's error, for failure metrics, the breaker, exit codes and retries.
type Class struct {
	Kind Kind
	// Status is the HTTP status the error reports; 0 when no answer came.
	Status int
}

// Classify classifies err (nil is KindNone); the first kind err holds decides, in Classify's order.
func Classify(err error) Class {
	if err == nil {
		return Class{}
	}
	var ae *APIError
	var re *ResponseError
	var ne net.Error
	c := Class{Kind: KindOther}
	// Only an APIError's status decides the kind: a ResponseError's (a body cut short, say) is reported, below.
	if errors.As(err, &ae) {
		c.Status = ae.StatusCode
	}
	switch {
	case c.Status == http.StatusTooManyRequests:
		c.Kind = KindRateLimited
	case c.Status == http.StatusUnauthorized:
		c.Kind = KindUnauthorized
	case c.Status == http.StatusForbidden:
		c.Kind = KindForbidden
	case c.Status >= 500:
		c.Kind = KindServerError
	case errors.As(err, &re):
		c.Kind = KindBadResponse
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		c.Kind = KindTimeout
	case c.Status == http.StatusNotFound:
		c.Kind = KindNotFound
	case c.Status == http.StatusBadRequest:
		c.Kind = KindBadRequest
	}
	if ae == nil && re != nil {
		c.Status = re.StatusCode
	}
	return c
}

// reasons holds each kind's reason label; the kinds after KindTimeout are "other".
var reasons = [...]string{KindRateLimited: ReasonRateLimited, KindUnauthorized: ReasonUnauthorized, KindForbidden: ReasonForbidden,
	KindServerError: ReasonServerError, KindBadResponse: ReasonBadResponse, KindTimeout: ReasonTimeout}

// Reason is the reason label, "" for none; a 404 or 400 is "other": a project id the API does not know.
func (c Class) Reason() string {
	if c.Kind >= 0 && int(c.Kind) < len(reasons) {
		return reasons[c.Kind]
	}
	return ReasonOther
}

// Outage tells a failure that may mean the upstream as a whole is unwell; it opens a key's circuit breaker.
func (c Class) Outage() bool {
	switch c.Reason() {
	case ReasonServerError, ReasonTimeout, ReasonOther:
		return true
	}
	return false
}

// Auth tells a refused key (401, 403): only changing the key or its rights helps.
func (c Class) Auth() bool { return c.Kind == KindUnauthorized || c.Kind == KindForbidden }

// Transient tells a failure worth retrying unchanged later: a 429, a 5xx, or no answer.
func (c Class) Transient() bool {
	if c.Kind == KindNone {
		return false
	}
	return c.Kind == KindRateLimited || c.Status == 0 || c.Status >= 500
}
