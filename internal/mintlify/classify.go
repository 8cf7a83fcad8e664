package mintlify

import (
	"context"
	"errors"
	"net"
	"net/http"
)

// Kind is what a failed call's error says happened, as far as what to do
// next depends on it. Classify tells it.
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

// Failure reasons: the values of the reason label of
// mintlify_refresh_failures_total (docs/metrics.md), from Class.Reason.
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

// Class is the classification of an error returned by a Client: one
// place that decides what a failure is, for the exporter's failure
// metrics and circuit breaker and for the exit status and retries of the
// jobs and backfill commands.
type Class struct {
	Kind Kind
	// Status is the HTTP status of the answer the error reports: the
	// *APIError's if it holds one, else the *ResponseError's; 0 when no
	// answer came (connection error, timeout, a stopped call).
	Status int
}

// Classify classifies err; nil is KindNone. The first of these that err
// holds decides: a 429, a 401, a 403, a 5xx *APIError, a *ResponseError,
// a timeout (context.DeadlineExceeded or a net.Error that timed out), a
// 404, a 400; anything else is KindOther.
func Classify(err error) Class {
	if err == nil {
		return Class{}
	}
	var ae *APIError
	var re *ResponseError
	c := Class{Kind: KindOther}
	switch {
	case errors.As(err, &ae):
		c.Status = ae.StatusCode
	case errors.As(err, &re):
		c.Status = re.StatusCode
	}
	c.Kind = kindOf(err, ae, re)
	return c
}

// kindOf is Classify's decision; ae and re are what err holds, or nil.
func kindOf(err error, ae *APIError, re *ResponseError) Kind {
	status := 0
	if ae != nil {
		status = ae.StatusCode
	}
	var ne net.Error
	switch {
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status == http.StatusUnauthorized:
		return KindUnauthorized
	case status == http.StatusForbidden:
		return KindForbidden
	case status >= 500:
		return KindServerError
	case re != nil || errors.As(err, &re):
		return KindBadResponse
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case status == http.StatusNotFound:
		return KindNotFound
	case status == http.StatusBadRequest:
		return KindBadRequest
	}
	return KindOther
}

// Reason is the failure's reason label (one of Reasons), or "" for no
// failure. A 404 or a 400 is "other": for the exporter both mean a
// project id the API does not know.
func (c Class) Reason() string {
	switch c.Kind {
	case KindNone:
		return ""
	case KindRateLimited:
		return ReasonRateLimited
	case KindUnauthorized:
		return ReasonUnauthorized
	case KindForbidden:
		return ReasonForbidden
	case KindServerError:
		return ReasonServerError
	case KindBadResponse:
		return ReasonBadResponse
	case KindTimeout:
		return ReasonTimeout
	}
	return ReasonOther
}

// Outage tells a failure that says the upstream as a whole may be unwell
// (reasons server_error, timeout and other): these open a key's circuit
// breaker in the exporter.
func (c Class) Outage() bool {
	switch c.Reason() {
	case ReasonServerError, ReasonTimeout, ReasonOther:
		return true
	}
	return false
}

// Auth tells a refused key (401 or 403): retrying soon cannot help,
// someone has to change the key or its rights.
func (c Class) Auth() bool { return c.Kind == KindUnauthorized || c.Kind == KindForbidden }

// Transient tells a failure worth trying again after a while, the request
// unchanged: a 429, a 5xx answer (usable or not), or no answer at all. An
// answer below 500 (4xx, an unusable 2xx or a redirect) would come again.
func (c Class) Transient() bool {
	if c.Kind == KindNone {
		return false
	}
	return c.Kind == KindRateLimited || c.Status == 0 || c.Status >= 500
}
