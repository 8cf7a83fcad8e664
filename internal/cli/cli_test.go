package cli

import (
	"context"
	"strings"
	"testing"

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
