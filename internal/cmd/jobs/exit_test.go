package jobs

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestJobsExitCodes runs one case of every class of outcome of the jobs
// command and checks the exit status docs/jobs.md and --help document:
// 0 success; 1 an API error, a file that cannot be read or written, or the
// watched job failed; 2 a bad command line or input (nothing sent);
// 3 watch timed out.
func TestJobsExitCodes(t *testing.T) {
	dir := t.TempDir()
	emptyKeyFile := filepath.Join(dir, "empty-key")
	dscKeyFile := filepath.Join(dir, "dsc-key")
	goodKeyFile := filepath.Join(dir, "good-key")
	for name, content := range map[string]string{emptyKeyFile: "\n", dscKeyFile: "mint_dsc_assistantkey123\n", goodKeyFile: jobsTestKey + "\n"} {
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + ln.Addr().String()
	ln.Close()

	const active = "job_exit_active"
	for _, tc := range []struct {
		name  string
		args  []string          // after --mintlify.api-url=<mock> unless noURL
		noURL bool              // args give their own --mintlify.api-url
		env   map[string]string // "" unsets
		setup func(h *jobsHarness)
		code  int
		want  string // in stderr
		sent  bool   // a request may have been sent
	}{
		// 0
		{name: "success", args: []string{"get", active}, code: 0, sent: true},
		{name: "help", args: []string{"--help"}, code: 0},
		{name: "long help", args: []string{"--help-long"}, code: 0},
		{name: "man page", args: []string{"--help-man"}, code: 0},
		{name: "key from --mintlify.api-key-file", args: []string{"--mintlify.api-key-file", goodKeyFile, "get", active}, env: map[string]string{"MINTLIFY_API_KEY": ""}, code: 0, sent: true},

		// 2: the command line or its input is wrong; nothing is sent.
		{name: "no command", args: nil, code: 2, want: "a command is required"},
		{name: "unknown command", args: []string{"list"}, code: 2, want: "list"},
		{name: "unknown flag", args: []string{"get", active, "--colour"}, code: 2, want: "colour"},
		{name: "missing job id", args: []string{"get"}, code: 2, want: "id"},
		{name: "no project", args: []string{"get", active}, env: map[string]string{"MINTLIFY_PROJECT_ID": ""}, code: 2, want: "mintlify.project-id"},
		{name: "bad output format", args: []string{"-o", "yaml", "get", active}, code: 2, want: "yaml"},
		{name: "both prompt sources", args: []string{"create", "--prompt", "x", "--prompt-file", goodKeyFile}, code: 2, want: "not both"},
		{name: "empty prompt", args: []string{"create", "--prompt", " "}, code: 2, want: "the prompt is empty"},
		{name: "zero request timeout", args: []string{"--mintlify.request-timeout=0s", "get", active}, code: 2, want: "--mintlify.request-timeout"},
		{name: "zero request timeout, deprecated flag", args: []string{"--request-timeout=0s", "get", active}, code: 2, want: "--request-timeout is deprecated and will be removed; use --mintlify.request-timeout instead"},
		{name: "zero watch interval", args: []string{"watch", active, "--interval=0s"}, code: 2, want: "--interval"},
		{name: "malformed api url", noURL: true, args: []string{"--mintlify.api-url=api.mintlify.com", "get", active}, code: 2,
			want: `--mintlify.api-url must be an absolute http or https URL, got "api.mintlify.com"`},
		{name: "api url with a query", noURL: true, args: []string{"--mintlify.api-url=https://api.mintlify.com/?x=1", "get", active}, code: 2,
			want: "--mintlify.api-url must not contain a query"},
		{name: "no key", args: []string{"get", active}, env: map[string]string{"MINTLIFY_API_KEY": ""}, code: 2,
			want: "no API key: environment variable MINTLIFY_API_KEY is empty; set it to an admin key, or give --mintlify.api-key-file"},
		{name: "assistant key", args: []string{"get", active}, env: map[string]string{"MINTLIFY_API_KEY": "mint_dsc_assistantkey123"}, code: 2,
			want: "the key in the MINTLIFY_API_KEY environment variable: API key is an assistant key (prefix mint_dsc_)"},
		{name: "index key", args: []string{"get", active}, env: map[string]string{"MINTLIFY_API_KEY": "mint_us_indexkey123"}, code: 2,
			want: "API key is an index key"},
		{name: "not a mintlify key", args: []string{"get", active}, env: map[string]string{"MINTLIFY_API_KEY": "sk_live_Zq8vW2xK4pL7"}, code: 2,
			want: "admin keys start with mint_"},
		{name: "key file empty", args: []string{"--mintlify.api-key-file", emptyKeyFile, "get", active}, code: 2,
			want: "no usable API key in --mintlify.api-key-file: file " + emptyKeyFile + " is empty"},
		{name: "assistant key in key file", args: []string{"--mintlify.api-key-file", dscKeyFile, "get", active}, code: 2,
			want: "the key in --mintlify.api-key-file " + dscKeyFile + ": API key is an assistant key"},

		// 1: a file cannot be read or written.
		{name: "key file missing", args: []string{"--mintlify.api-key-file", filepath.Join(dir, "nope"), "get", active}, code: 1,
			want: "reading --mintlify.api-key-file: open " + filepath.Join(dir, "nope")},
		{name: "prompt file missing", args: []string{"create", "--prompt-file", filepath.Join(dir, "nope.txt")}, code: 1,
			want: "reading the prompt: open " + filepath.Join(dir, "nope.txt")},
		{name: "track directory missing", args: []string{"create", "--prompt", "x", "--track", filepath.Join(dir, "no", "t.txt")}, code: 1,
			want: "does not exist; no job was created"},
		{name: "track file not writable", args: []string{"create", "--prompt", "x", "--track", dir}, code: 1,
			want: "was created but is NOT tracked", sent: true},

		// 1: the API said no, or did not answer.
		{name: "401", args: []string{"get", active}, env: map[string]string{"MINTLIFY_API_KEY": jobsUnknownKey}, code: 1, want: "refused", sent: true},
		{name: "403", args: []string{"create", "--prompt", "x"}, env: map[string]string{"MINTLIFY_API_KEY": jobsReadOnlyKey}, code: 1, want: "write-scoped", sent: true},
		{name: "404", args: []string{"get", "job_nope"}, code: 1, want: "job job_nope not found", sent: true},
		{name: "429", args: []string{"create", "--prompt", "x"}, code: 1, want: "rate limit hit", sent: true,
			setup: func(h *jobsHarness) {
				h.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointCreateJob, Status: 429})
			}},
		{name: "500", args: []string{"create", "--prompt", "x"}, code: 1, want: "500", sent: true,
			setup: func(h *jobsHarness) {
				h.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointCreateJob, Status: 500})
			}},
		{name: "no answer", noURL: true, args: []string{"--mintlify.api-url=" + deadURL, "get", active}, code: 1, want: "connection refused"},

		// watch: 1 when the job failed, 3 when --timeout passed first.
		{name: "watch: the job failed", args: []string{"watch", active, "--interval", "30s"}, code: 1, want: "job " + active + " failed", sent: true,
			setup: func(h *jobsHarness) {
				h.onSleep = func(int) { _ = h.api.Server.FailJob(jobsProject, active) }
			}},
		{name: "watch: timed out", args: []string{"watch", active, "--interval", "30s", "--timeout", "1m"}, code: 3, want: "timed out after 1m0s", sent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newJobsHarness(t, nil)
			h.api.Server.SeedJob(jobsProject, mockapi.JobSeed{ID: active, Prompt: "seeded", CreatedAt: jobsStart})
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.setup != nil {
				tc.setup(h)
			}
			before := h.requests()
			var code int
			var errs string
			if tc.noURL {
				code, _, errs = runJobsRaw(h, tc.args...)
			} else {
				code, _, errs = h.run(tc.args...)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errs)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q does not contain %q", errs, tc.want)
			}
			if n := h.requests() - before; !tc.sent && n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// runJobsRaw is jobsHarness.run without the --mintlify.api-url it adds.
func runJobsRaw(h *jobsHarness, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	env := &jobsEnv{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: os.Getenv,
		now:   h.clock.Now,
		sleep: func(ctx context.Context, d time.Duration) error { h.clock.Advance(d); return ctx.Err() },
	}
	return env.run(args), out.String(), errb.String()
}
