package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// TestProjectIDFlagIsCheckedAsTheConfig: --mintlify.project-id refuses
// what the configuration's id check refuses (dot segments, '%', length
// past the bound, ...), in the words of the flag, and takes a good id.
func TestProjectIDFlagIsCheckedAsTheConfig(t *testing.T) {
	for _, id := range []string{"..", ".", "a%2fb", strings.Repeat("p", 201), "a/b", "a b", "a?b", "", "bad\xff"} {
		err := CheckProjectID(id)
		if err == nil || !strings.HasPrefix(err.Error(), "--mintlify.project-id (or MINTLIFY_PROJECT_ID): ") {
			t.Errorf("CheckProjectID(%q) = %v, want the flag's refusal", id, err)
		}
	}
	if err := CheckProjectID("proj_123-abc"); err != nil {
		t.Errorf("a good id is refused: %v", err)
	}
}

// TestExitOfAPIError: a command that stops on a failed API call exits 2
// when the API refused the arguments (400), else 1.
func TestExitOfAPIError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{&mintlify.APIError{Endpoint: "views", StatusCode: 400}, ExitUsage},
		{&mintlify.APIError{Endpoint: "views", StatusCode: 401}, ExitError},
		{&mintlify.APIError{Endpoint: "views", StatusCode: 429}, ExitError},
		{&mintlify.APIError{Endpoint: "views", StatusCode: 503}, ExitError},
		{context.DeadlineExceeded, ExitError},
	} {
		if got := ExitOfAPIError(tc.err); got != tc.want {
			t.Errorf("ExitOfAPIError(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestAPIURLFlagChecked: --mintlify.api-url refuses a port out of range
// and user info, naming the flag, and its errors never show a password.
func TestAPIURLFlagChecked(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://127.0.0.1:99999", `--mintlify.api-url must have a port from 1 to 65535, got "http://127.0.0.1:99999"`},
		{"http://127.0.0.1:0", `--mintlify.api-url must have a port from 1 to 65535, got "http://127.0.0.1:0"`},
		{"https://am:secretpw@api.mintlify.com", `--mintlify.api-url must not contain a query, fragment or user info, got "https://xxxxx@api.mintlify.com"`},
		{"https://am:secretpw@api.mintlify.com:99999", `--mintlify.api-url must have a port from 1 to 65535, got "https://xxxxx@api.mintlify.com:99999"`},
		{"https://am:secretpw@api mintlify.com", "--mintlify.api-url must be an absolute http or https URL, got \"https://xxxxx@api mintlify.com\""},
		{"am:secretpw@api.mintlify.com", "--mintlify.api-url must be an absolute http or https URL, got \"xxxxx@api.mintlify.com\""},
	} {
		err := CheckAPIURL(tc.url)
		if err == nil || err.Error() != tc.want {
			t.Errorf("CheckAPIURL(%q) = %v, want %q", tc.url, err, tc.want)
		}
	}
	for _, ok := range []string{"http://127.0.0.1:65535", "https://api.mintlify.com", "http://[::1]:8080/v1"} {
		if err := CheckAPIURL(ok); err != nil {
			t.Errorf("CheckAPIURL(%q): %v", ok, err)
		}
	}
}

// TestRequestTimeoutFlagChecked: --mintlify.request-timeout is at least
// 1s and at most 1h, in the flag's words.
func TestRequestTimeoutFlagChecked(t *testing.T) {
	for _, d := range []time.Duration{0, time.Nanosecond, time.Second - 1, time.Hour + 1} {
		want := "--mintlify.request-timeout must be at least 1s and at most 1h0m0s, got " + d.String()
		if err := CheckRequestTimeout(d); err == nil || err.Error() != want {
			t.Errorf("CheckRequestTimeout(%s) = %v, want %q", d, err, want)
		}
	}
	for _, d := range []time.Duration{time.Second, time.Hour} {
		if err := CheckRequestTimeout(d); err != nil {
			t.Errorf("CheckRequestTimeout(%s): %v", d, err)
		}
	}
}
