package jobs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
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
		if code != cli.ExitUsage || !strings.Contains(stderr, "id") {
			t.Errorf("%q: exit %d, %s", args, code, stderr)
		}
	}
	for _, timeout := range []string{"0s", "1ns", "876000h"} {
		code, _, stderr := h.run("--mintlify.request-timeout="+timeout, "get", "job_1")
		if code != cli.ExitUsage || !strings.Contains(stderr, "--mintlify.request-timeout must be at least 1s and at most 1h0m0s, got ") {
			t.Errorf("--mintlify.request-timeout=%s: exit %d, %s", timeout, code, stderr)
		}
	}
	if n := h.requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	var out, errb bytes.Buffer
	env := &jobsEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		return map[string]string{"MINTLIFY_API_KEY": jobsTestKey, "MINTLIFY_PROJECT_ID": jobsProject}[k]
	}}
	if code := env.run([]string{"--mintlify.api-url=http://user:pw@" + strings.TrimPrefix(h.api.URL(), "http://"), "get", "job_1"}); code != cli.ExitUsage ||
		!strings.Contains(errb.String(), "--mintlify.api-url must not contain") {
		t.Fatalf("user info in --mintlify.api-url: exit %d, %s", code, errb.String())
	}
	if n := h.requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestJobsPromptFileBounded: --prompt-file reads a regular file within
// the prompt's cap: a FIFO is refused at once (exit 1; a pipe's text goes
// on standard input), and a file over the cap is refused from its size
// (exit 2), before a byte of it is read, even a sparse one of 1 GiB.
func TestJobsPromptFileBounded(t *testing.T) {
	h := newJobsHarness(t, nil)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "prompt.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := h.run("create", "--prompt-file", fifo)
	if code != cli.ExitError || !strings.Contains(stderr, "not a regular file (a FIFO)") {
		t.Errorf("FIFO: exit %d, %s", code, stderr)
	}
	huge := filepath.Join(dir, "huge.txt")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, _, stderr = h.run("create", "--prompt-file", huge)
	if code != cli.ExitUsage || !strings.Contains(stderr, "is longer than") {
		t.Errorf("1 GiB file: exit %d, %s", code, stderr)
	}
	if n := h.requests(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
