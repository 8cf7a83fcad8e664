package mintlify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

// Every failure the client returns, with what the exporter (reason,
// circuit breaker) and the commands (retry, exit status) make of it.
func TestClassify(t *testing.T) {
	api := func(status int) error { return &APIError{Endpoint: "views", StatusCode: status} }
	resp := func(status int) error { return &ResponseError{Endpoint: "views", StatusCode: status, Reason: "x"} }
	for _, tc := range []struct {
		name      string
		err       error
		kind      Kind
		status    int
		reason    string
		outage    bool
		auth      bool
		transient bool
	}{
		{"nil", nil, KindNone, 0, "", false, false, false},
		{"429", api(429), KindRateLimited, 429, ReasonRateLimited, false, false, true},
		{"401", api(401), KindUnauthorized, 401, ReasonUnauthorized, false, true, false},
		{"403", api(403), KindForbidden, 403, ReasonForbidden, false, true, false},
		{"500", api(500), KindServerError, 500, ReasonServerError, true, false, true},
		{"wrapped 503", fmt.Errorf("walk: %w", api(503)), KindServerError, 503, ReasonServerError, true, false, true},
		// do() joins the last failure with the context's end during a back-off.
		{"503 then deadline", errors.Join(api(503), context.DeadlineExceeded), KindServerError, 503, ReasonServerError, true, false, true},
		{"503 then cancel", errors.Join(api(503), context.Canceled), KindServerError, 503, ReasonServerError, true, false, true},
		{"bad JSON in a 200", resp(200), KindBadResponse, 200, ReasonBadResponse, false, false, false},
		{"redirect", resp(302), KindBadResponse, 302, ReasonBadResponse, false, false, false},
		{"body cut short in a 502", resp(502), KindBadResponse, 502, ReasonBadResponse, false, false, true},
		{"deadline", fmt.Errorf("mintlify views: %w", context.DeadlineExceeded), KindTimeout, 0, ReasonTimeout, true, false, true},
		{"net timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, KindTimeout, 0, ReasonTimeout, true, false, true},
		{"404", api(404), KindNotFound, 404, ReasonOther, true, false, false},
		{"400", api(400), KindBadRequest, 400, ReasonOther, true, false, false},
		{"409", api(409), KindOther, 409, ReasonOther, true, false, false},
		{"connection refused", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, KindOther, 0, ReasonOther, true, false, true},
		{"gate refused", fmt.Errorf("%w: %w", ErrWalkStopped, errors.New("no budget")), KindOther, 0, ReasonOther, true, false, true},
		{"cancelled", context.Canceled, KindOther, 0, ReasonOther, true, false, true},
	} {
		c := Classify(tc.err)
		if c.Kind != tc.kind || c.Status != tc.status {
			t.Errorf("%s: Classify = %+v, want kind %d status %d", tc.name, c, tc.kind, tc.status)
		}
		if got := c.Reason(); got != tc.reason {
			t.Errorf("%s: Reason = %q, want %q", tc.name, got, tc.reason)
		}
		if got := c.Outage(); got != tc.outage {
			t.Errorf("%s: Outage = %v, want %v", tc.name, got, tc.outage)
		}
		if got := c.Auth(); got != tc.auth {
			t.Errorf("%s: Auth = %v, want %v", tc.name, got, tc.auth)
		}
		if got := c.Transient(); got != tc.transient {
			t.Errorf("%s: Transient = %v, want %v", tc.name, got, tc.transient)
		}
	}
}

// Reasons is every value Reason gives, and docs/metrics.md lists them all.
func TestReasonsComplete(t *testing.T) {
	var got []string
	for k := KindNone + 1; k <= KindOther; k++ {
		if r := (Class{Kind: k}).Reason(); !slices.Contains(got, r) {
			got = append(got, r)
		}
	}
	if !slices.Equal(got, Reasons) {
		t.Errorf("reasons of the kinds = %q, Reasons = %q", got, Reasons)
	}
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.Lines(string(doc)) {
		if strings.HasPrefix(l, "| `mintlify_refresh_failures_total`") {
			line = l
		}
	}
	for _, r := range Reasons {
		if !strings.Contains(line, "`"+r+"`") {
			t.Errorf("docs/metrics.md does not list reason %q for mintlify_refresh_failures_total", r)
		}
	}
}
