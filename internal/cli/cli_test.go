package cli

import (
	"strings"
	"testing"
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
