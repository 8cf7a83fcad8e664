package jobs

import (
	"bytes"
	"strings"
	"testing"
)

// The jobs command refuses ids that are not one path segment, and an API
// URL the config file would refuse, before any request.
func TestJobsRefusesHostileArgs(t *testing.T) {
	h := newJobsHarness(t, nil)
	for _, args := range [][]string{
		{"get", ".."},
		{"get", "."},
		{"get", "a/b"},
		{"watch", "..", "--timeout=1s"},
		{"message", "..", "--prompt", "x"},
		{"--mintlify.project-id=..", "get", "job_1"},
		{"--mintlify.project-id=a/../b", "create", "--prompt", "x"},
	} {
		code, _, stderr := h.run(args...)
		if code != jobsExitUsage || !strings.Contains(stderr, "id") {
			t.Errorf("%q: exit %d, %s", args, code, stderr)
		}
	}
	if n := h.requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	var out, errb bytes.Buffer
	env := &jobsEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		return map[string]string{"MINTLIFY_API_KEY": jobsTestKey, "MINTLIFY_PROJECT_ID": jobsProject}[k]
	}}
	if code := env.run([]string{"--mintlify.api-url=http://user:pw@" + strings.TrimPrefix(h.api.URL(), "http://"), "get", "job_1"}); code != jobsExitUsage ||
		!strings.Contains(errb.String(), "--mintlify.api-url must not contain") {
		t.Fatalf("user info in --mintlify.api-url: exit %d, %s", code, errb.String())
	}
	if n := h.requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
