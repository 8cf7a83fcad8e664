package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/trackfile"
)

const (
	jobsTestKey     = "mint_jobstestkey_Zq8vW2xK4pL7"
	jobsReadOnlyKey = "mint_jobsreadonly_Hn3cR9tY6b"
	jobsUnknownKey  = "mint_jobsunknown_Ua5sD1fG0j"
	jobsProject     = "proj-jobs"
)

var jobsStart = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// jobsHarness runs the jobs command against a simulated API whose clock
// only moves when the command "sleeps".
type jobsHarness struct {
	t     *testing.T
	api   *mockapi.Running
	clock *manualclock.Clock
	stdin io.Reader
	// sleeps records every wait the command asked for.
	sleeps []time.Duration
	// onSleep, if set, runs after the clock moved for the n-th sleep (from 1).
	onSleep func(n int)
}

func newJobsHarness(t *testing.T, opt func(*mockapi.Options)) *jobsHarness {
	t.Helper()
	clock := manualclock.New(jobsStart)
	mo := mockapi.Options{
		Keys: []mockapi.KeySpec{
			{Key: jobsTestKey, Org: "acme", Scope: mockapi.ReadWrite},
			{Key: jobsReadOnlyKey, Org: "acme", Scope: mockapi.ReadOnly},
		},
		Projects:     map[string]mockapi.Site{jobsProject: {Seed: 1, Paths: 3}},
		Clock:        clock,
		JobActiveFor: 2 * time.Minute,
	}
	if opt != nil {
		opt(&mo)
	}
	api := testkit.StartAPI(t, mo)
	t.Setenv("MINTLIFY_PROJECT_ID", jobsProject)
	t.Setenv("MINTLIFY_API_KEY", jobsTestKey)
	return &jobsHarness{t: t, api: api, clock: clock}
}

// run runs `jobs args…` and checks that no key ever shows in the output.
func (h *jobsHarness) run(args ...string) (code int, stdout, stderr string) {
	h.t.Helper()
	var out, errb bytes.Buffer
	stdin := h.stdin
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	env := &jobsEnv{
		stdin: stdin, stdout: &out, stderr: &errb, getenv: os.Getenv,
		now: h.clock.Now,
		sleep: func(ctx context.Context, d time.Duration) error {
			h.sleeps = append(h.sleeps, d)
			h.clock.Advance(d)
			if h.onSleep != nil {
				h.onSleep(len(h.sleeps))
			}
			return ctx.Err()
		},
	}
	code = env.run(append([]string{"--mintlify.api-url=" + h.api.URL()}, args...))
	for _, key := range []string{jobsTestKey, jobsReadOnlyKey, jobsUnknownKey, "assistantkey123", "sk_live_", "Zq8vW2xK4pL7", "Hn3cR9tY6b", "Ua5sD1fG0j"} {
		if strings.Contains(out.String(), key) || strings.Contains(errb.String(), key) {
			h.t.Errorf("jobs %q printed (part of) an API key %q:\nstdout: %s\nstderr: %s", args, key, out.String(), errb.String())
		}
	}
	return code, out.String(), errb.String()
}

func (h *jobsHarness) requests() int { return h.api.Server.CountRequests(nil) }

// createJSON creates a job and returns it decoded.
func (h *jobsHarness) createJSON(prompt string, extra ...string) mintlify.Job {
	h.t.Helper()
	code, out, errs := h.run(append([]string{"--output=json", "create", "--prompt", prompt}, extra...)...)
	if code != 0 {
		h.t.Fatalf("create: exit %d, stderr %s", code, errs)
	}
	return decodeJob(h.t, out)
}

func decodeJob(t *testing.T, s string) mintlify.Job {
	t.Helper()
	var j mintlify.Job
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		t.Fatalf("output %q is not a job: %v", s, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON object in %q", s)
	}
	return j
}

func wantExit(t *testing.T, what string, code, want int, stderr string) {
	t.Helper()
	if code != want {
		t.Fatalf("%s: exit %d, want %d; stderr: %s", what, code, want, stderr)
	}
}

func TestJobsCreateGetMessage(t *testing.T) {
	h := newJobsHarness(t, nil)
	job := h.createJSON("Document the new webhook API")
	if job.ID == "" || job.Status != mintlify.JobActive || job.Model == "" || !strings.HasPrefix(job.Repository, "https://github.com/") {
		t.Fatalf("created job = %+v", job)
	}
	if !job.CreatedAt.Equal(jobsStart) {
		t.Errorf("createdAt %v, want %v", job.CreatedAt, jobsStart)
	}

	code, out, errs := h.run("get", job.ID)
	wantExit(t, "get", code, 0, errs)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("get table has %d lines:\n%s", len(lines), out)
	}
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"ID", "STATUS", "MODEL", "REPOSITORY", "REF", "CREATED", "PR", "ARCHIVED"}) {
		t.Errorf("header = %q", got)
	}
	want := []string{job.ID, "active", job.Model, job.Repository, "main", "2026-03-02T10:00:00Z", "-", "-"}
	if got := strings.Fields(lines[1]); !slices.Equal(got, want) {
		t.Errorf("row = %q, want %q", got, want)
	}

	h.clock.Advance(3 * time.Minute)
	code, out, errs = h.run("-o", "json", "get", job.ID)
	wantExit(t, "get json", code, 0, errs)
	done := decodeJob(t, out)
	if done.Status != mintlify.JobCompleted || done.PRLink == nil || !strings.Contains(*done.PRLink, "/pull/") {
		t.Fatalf("after 3m: %+v", done)
	}

	code, out, errs = h.run("--output=json", "message", job.ID, "--prompt", "Also add an example")
	wantExit(t, "message", code, 0, errs)
	if msg := decodeJob(t, out); msg.ID != job.ID || msg.Status != mintlify.JobActive {
		t.Fatalf("after message: %+v", msg)
	}
	if n := h.api.Server.CountRequests(func(r mockapi.Request) bool {
		return r.Endpoint == mockapi.EndpointSendMessage && r.JobID == job.ID && r.Status == 200
	}); n != 1 {
		t.Errorf("%d successful send_message requests, want 1", n)
	}
}

func TestJobsTableNullRefAndArchived(t *testing.T) {
	h := newJobsHarness(t, nil)
	id := h.api.Server.SeedJob(jobsProject, mockapi.JobSeed{ID: "job_old", NullRef: true, CreatedAt: jobsStart.Add(-3 * time.Hour)})
	code, out, errs := h.run("get", id)
	wantExit(t, "get", code, 0, errs)
	row := strings.Fields(strings.Split(out, "\n")[1])
	// Seeded 3h ago, active 2m, archived 1h after finishing.
	repo := "https://github.com/acme/proj-jobs-docs"
	if len(row) != 8 || !strings.HasPrefix(row[6], repo+"/pull/") {
		t.Fatalf("row = %q", row)
	}
	row[6] = "PR"
	if want := []string{"job_old", "archived", mockapi.Model, repo, "-", "2026-03-02T07:00:00Z", "PR", "2026-03-02T08:02:00Z"}; !slices.Equal(row, want) {
		t.Errorf("row = %q, want %q", row, want)
	}
}

func TestJobsPromptSources(t *testing.T) {
	h := newJobsHarness(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "prompt.txt")
	// The word "fail" makes the simulated job fail: proof the text arrived.
	if err := os.WriteFile(file, []byte("Rewrite the intro, then fail\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := h.run("--output=json", "create", "--prompt-file", file)
	wantExit(t, "create --prompt-file", code, 0, errs)
	fromFile := decodeJob(t, out)

	h.stdin = strings.NewReader("From stdin: please fail.\n")
	code, out, errs = h.run("--output=json", "create")
	wantExit(t, "create from stdin", code, 0, errs)
	fromStdin := decodeJob(t, out)

	h.stdin = strings.NewReader("dash means stdin; fail")
	code, out, errs = h.run("--output=json", "create", "--prompt-file=-")
	wantExit(t, "create --prompt-file -", code, 0, errs)
	fromDash := decodeJob(t, out)

	h.stdin = strings.NewReader("fail this run too")
	code, _, errs = h.run("message", fromFile.ID)
	wantExit(t, "message from stdin", code, 0, errs)

	h.clock.Advance(5 * time.Minute)
	for _, id := range []string{fromFile.ID, fromStdin.ID, fromDash.ID} {
		code, out, errs := h.run("--output=json", "get", id)
		wantExit(t, "get", code, 0, errs)
		if j := decodeJob(t, out); j.Status != mintlify.JobFailed {
			t.Errorf("job %s is %s: the prompt did not reach the API", id, j.Status)
		}
	}

	code, _, errs = h.run("create", "--prompt", "x", "--prompt-file", file)
	wantExit(t, "both sources", code, 2, errs)
	code, _, errs = h.run("create", "--prompt-file", filepath.Join(dir, "missing.txt"))
	wantExit(t, "missing prompt file", code, 1, errs)
	if !strings.Contains(errs, "missing.txt") {
		t.Errorf("stderr does not name the file: %s", errs)
	}
}

func TestJobsEmptyPromptRefusedLocally(t *testing.T) {
	h := newJobsHarness(t, nil)
	id := h.api.Server.SeedJob(jobsProject, mockapi.JobSeed{ID: "job_existing"})
	ws := filepath.Join(t.TempDir(), "blank.txt")
	if err := os.WriteFile(ws, []byte(" \n\t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"message --prompt ''", "ignored", []string{"message", id, "--prompt", ""}},
		{"message --prompt=", "", []string{"message", id, "--prompt="}},
		{"message empty stdin", "", []string{"message", id}},
		{"message newline stdin", "\n", []string{"message", id, "--prompt-file", "-"}},
		{"message blank file", "", []string{"message", id, "--prompt-file", ws}},
		{"create --prompt ''", "", []string{"create", "--prompt", ""}},
		{"create empty stdin", "", []string{"create"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.stdin = strings.NewReader(tc.stdin)
			before := h.requests()
			code, out, errs := h.run(tc.args...)
			wantExit(t, tc.name, code, 2, errs)
			if !strings.Contains(errs, "mintlify_exporter jobs: the prompt is empty") || !strings.Contains(errs, "at least one character") {
				t.Errorf("stderr = %q", errs)
			}
			if out != "" {
				t.Errorf("stdout = %q", out)
			}
			if n := h.requests() - before; n != 0 {
				t.Errorf("%d requests made for an empty prompt", n)
			}
		})
	}
}

func TestJobsTrack(t *testing.T) {
	h := newJobsHarness(t, nil)
	dir := t.TempDir()
	track := filepath.Join(dir, "tracked.txt")
	a := h.createJSON("first", "--track", track)
	b := h.createJSON("second", "--track="+track)
	ids, err := trackfile.Read(track)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{"proj-jobs/" + a.ID, "proj-jobs/" + b.ID}) {
		t.Fatalf("tracked ids = %q, want %q", ids, []string{a.ID, b.ID})
	}

	// A directory that does not exist is caught before the job is created.
	before := h.requests()
	code, out, errs := h.run("create", "--prompt", "x", "--track", filepath.Join(dir, "nope", "t.txt"))
	wantExit(t, "track into missing dir", code, 1, errs)
	if out != "" || h.requests() != before || !strings.Contains(errs, "does not exist") {
		t.Errorf("missing dir: stdout %q, %d requests, stderr %q", out, h.requests()-before, errs)
	}

	// Appending fails after the job exists: the job is printed, the error
	// names it, the exit status is 1.
	notAFile := filepath.Join(dir, "subdir")
	if err := os.Mkdir(notAFile, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs = h.run("--output=json", "create", "--prompt", "x", "--track", notAFile)
	wantExit(t, "track into a directory", code, 1, errs)
	job := decodeJob(t, out)
	if !strings.Contains(errs, "job "+job.ID+" was created but is NOT tracked") {
		t.Errorf("stderr = %q", errs)
	}
}

func TestJobsErrorClasses(t *testing.T) {
	const (
		pre     = "mintlify_exporter jobs: "
		refused = pre + "the API key was refused: unknown, revoked or expired\n"
		scope   = pre + "the API key is not allowed to do this: creating jobs and sending messages need a write-scoped admin key (or this host is outside the key's IP allowlist)\n"
		limit   = pre + "rate limit hit: the agent API allows 100 job creations and messages per project per hour; retry after "
	)
	createTwice := func(h *jobsHarness) { h.createJSON("first"); h.clock.Advance(15 * time.Minute) }
	for _, tc := range []struct {
		name, key string
		mock      func(*mockapi.Options)
		args      []string
		want      string // whole stderr
		code      int    // 0 means 1
		local     bool   // refused before any request
	}{
		{name: "401 unknown key", key: jobsUnknownKey, args: []string{"get", "job_x"}, want: refused},
		{name: "401 on create", key: jobsUnknownKey, args: []string{"create", "--prompt", "x"}, want: refused},
		{name: "403 read-only key on create", key: jobsReadOnlyKey, args: []string{"create", "--prompt", "x"}, want: scope},
		{name: "403 read-only key on message", key: jobsReadOnlyKey, args: []string{"message", "job_x", "--prompt", "x"}, want: scope},
		{name: "404 unknown job", args: []string{"get", "job_nope"}, want: pre + "job job_nope not found in project proj-jobs\n"},
		{name: "404 message", args: []string{"message", "job_nope", "--prompt", "hi"}, want: pre + "job job_nope not found in project proj-jobs\n"},
		{name: "404 watch", args: []string{"watch", "job_nope"}, want: pre + "job job_nope not found in project proj-jobs\n"},
		{name: "429 without Retry-After", mock: func(o *mockapi.Options) { o.AgentBudgetPerHour = 1 },
			args: []string{"create", "--prompt", "second"}, want: limit + "a few minutes\n"},
		{name: "429 with Retry-After", mock: func(o *mockapi.Options) { o.AgentBudgetPerHour, o.RetryAfter = 1, true },
			args: []string{"create", "--prompt", "second"}, want: limit + "45m0s\n"},
		{name: "bad key type", key: "mint_dsc_assistantkey123", args: []string{"get", "job_x"}, code: 2, local: true,
			want: pre + "the key in the MINTLIFY_API_KEY environment variable: API key is an assistant key (prefix mint_dsc_); the admin API needs an admin key (prefix mint_)\n"},
		{name: "not an admin key", key: "sk_live_Zq8vW2xK4pL7", args: []string{"create", "--prompt", "x"}, code: 2, local: true,
			want: pre + "the key in the MINTLIFY_API_KEY environment variable: API key is not an admin key: admin keys start with mint_\n"},
		{name: "no key", key: " ", args: []string{"get", "job_x"}, code: 2, local: true,
			want: pre + "no API key: environment variable MINTLIFY_API_KEY is empty; set it to an admin key, or give --mintlify.api-key-file\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newJobsHarness(t, tc.mock)
			if tc.mock != nil {
				createTwice(h)
			}
			if tc.key != "" {
				t.Setenv("MINTLIFY_API_KEY", tc.key)
			}
			before := h.requests()
			code, out, errs := h.run(tc.args...)
			wantExit(t, tc.name, code, max(tc.code, 1), errs)
			if errs != tc.want || out != "" {
				t.Errorf("stdout %q, stderr %q\nwant stderr %q", out, errs, tc.want)
			}
			if tc.local && h.requests() != before {
				t.Errorf("%d requests made", h.requests()-before)
			}
		})
	}
}

func TestJobsWatchCompleted(t *testing.T) {
	h := newJobsHarness(t, nil)
	job := h.createJSON("Add a changelog page")
	code, out, errs := h.run("watch", job.ID, "--interval", "30s")
	wantExit(t, "watch", code, 0, errs)
	if errs != "" {
		t.Errorf("stderr = %q", errs)
	}
	view, _ := h.api.Server.Job(jobsProject, job.ID)
	want := "2026-03-02T10:00:00Z  " + job.ID + "  active\n" +
		"2026-03-02T10:02:00Z  " + job.ID + "  completed  " + *view.PRLink + "\n"
	if out != want {
		t.Errorf("watch output:\n%s\nwant:\n%s", out, want)
	}
	if !slices.Equal(h.sleeps, []time.Duration{30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}) {
		t.Errorf("sleeps = %v", h.sleeps)
	}
	if n := h.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == mockapi.EndpointGetJob }); n != 5 {
		t.Errorf("%d polls, want 5", n)
	}
}

func TestJobsWatchFailed(t *testing.T) {
	h := newJobsHarness(t, nil)
	job := h.createJSON("please fail")
	code, out, errs := h.run("watch", job.ID, "--interval=1m")
	wantExit(t, "watch failing job", code, 1, errs)
	if !strings.HasSuffix(out, job.ID+"  failed\n") || errs != "mintlify_exporter jobs: job "+job.ID+" failed\n" {
		t.Errorf("stdout %q stderr %q", out, errs)
	}

	// A job failed from outside while being watched.
	h.sleeps = nil
	other := h.createJSON("all good")
	h.onSleep = func(n int) {
		if n == 1 {
			if err := h.api.Server.FailJob(jobsProject, other.ID); err != nil {
				t.Error(err)
			}
		}
	}
	code, out, errs = h.run("watch", other.ID, "--interval=10s")
	wantExit(t, "watch FailJob", code, 1, errs)
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "  active\n") || !strings.HasSuffix(out, "  failed\n") {
		t.Errorf("stdout %q", out)
	}
}

func TestJobsWatchTimeout(t *testing.T) {
	h := newJobsHarness(t, func(o *mockapi.Options) { o.JobActiveFor = time.Hour })
	job := h.createJSON("slow one")
	code, out, errs := h.run("watch", job.ID, "--interval", "25s", "--timeout", "1m")
	wantExit(t, "watch timeout", code, 3, errs)
	if strings.Count(out, "\n") != 1 {
		t.Errorf("one line expected for one status, got %q", out)
	}
	if errs != "mintlify_exporter jobs: timed out after 1m0s: job "+job.ID+" is still active\n" {
		t.Errorf("stderr = %q", errs)
	}
	// The last wait is cut to the deadline, and the job is polled once more.
	if !slices.Equal(h.sleeps, []time.Duration{25 * time.Second, 25 * time.Second, 10 * time.Second}) {
		t.Errorf("sleeps = %v", h.sleeps)
	}
}

func TestJobsWatchJSONAndArchived(t *testing.T) {
	h := newJobsHarness(t, nil)
	job := h.createJSON("json please")
	code, out, errs := h.run("--output", "json", "watch", job.ID, "--interval", "1m")
	wantExit(t, "watch json", code, 0, errs)
	var statuses []mintlify.JobStatus
	for line := range strings.Lines(out) {
		j := decodeJob(t, line)
		statuses = append(statuses, j.Status)
		if j.Status == mintlify.JobCompleted && j.PRLink == nil {
			t.Error("completed without prLink")
		}
	}
	if !slices.Equal(statuses, []mintlify.JobStatus{mintlify.JobActive, mintlify.JobCompleted}) {
		t.Errorf("statuses = %v", statuses)
	}

	old := h.api.Server.SeedJob(jobsProject, mockapi.JobSeed{ID: "job_archived", CreatedAt: jobsStart.Add(-48 * time.Hour)})
	h.sleeps = nil
	code, out, errs = h.run("watch", old)
	wantExit(t, "watch archived", code, 0, errs)
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "  archived  https://") || len(h.sleeps) != 0 {
		t.Errorf("stdout %q, sleeps %v", out, h.sleeps)
	}
}

func TestJobsWatchPollsThroughRateLimit(t *testing.T) {
	h := newJobsHarness(t, nil)
	job := h.createJSON("keep going")
	h.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointGetJob, Status: 429, RetryAfter: "90", Remaining: 1})
	code, out, errs := h.run("watch", job.ID, "--interval", "30s")
	wantExit(t, "watch through 429", code, 0, errs)
	if !strings.Contains(errs, "rate limit hit reading job "+job.ID+"; retry after 1m30s; trying again") {
		t.Errorf("stderr = %q", errs)
	}
	if h.sleeps[0] != 90*time.Second || !strings.Contains(out, "completed") {
		t.Errorf("sleeps %v, stdout %q", h.sleeps, out)
	}
}

func TestJobsUsage(t *testing.T) {
	h := newJobsHarness(t, nil)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "usage: mintlify_exporter jobs"},
		{[]string{"watch", "--help"}, 0, "3 when --timeout passed first"},
		{[]string{}, 2, "a command is required"},
		{[]string{"frobnicate"}, 2, "mintlify_exporter jobs: "},
		{[]string{"get"}, 2, "required argument 'id'"},
		{[]string{"--output=yaml", "get", "x"}, 2, "yaml"},
		{[]string{"watch", "x", "--interval=0s"}, 2, "must be positive"},
		{[]string{"--mintlify.api-key=" + jobsTestKey, "get", "x"}, 2, "unknown long flag"},
	} {
		before := h.requests()
		code, out, errs := h.run(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("jobs %q: exit %d, output %q %q; want exit %d and %q", tc.args, code, out, errs, tc.code, tc.want)
		}
		if h.requests() != before {
			t.Errorf("jobs %q made requests", tc.args)
		}
	}
	t.Setenv("MINTLIFY_PROJECT_ID", "")
	if code, _, errs := h.run("get", "x"); code != 2 || !strings.Contains(errs, "mintlify.project-id") {
		t.Errorf("no project: exit %d, %q", code, errs)
	}
}

// TestJobsKeyNeverPrinted runs every command, in both formats, with the key
// from the environment and from a file, on success and on each error; the
// harness fails the test if a key shows in stdout or stderr.
func TestJobsKeyNeverPrinted(t *testing.T) {
	h := newJobsHarness(t, func(o *mockapi.Options) { o.AgentBudgetPerHour = 3 })
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(jobsTestKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	job := h.createJSON("base job")
	for _, keyArgs := range [][]string{nil, {"--mintlify.api-key-file", keyFile}} {
		for _, output := range []string{"table", "json"} {
			pre := append([]string{"--output", output}, keyArgs...)
			for _, args := range [][]string{
				{"create", "--prompt", "x"},
				{"message", job.ID, "--prompt", "y"},
				{"get", job.ID},
				{"watch", job.ID, "--interval=1m", "--timeout=1m"},
				{"get", "job_missing"},
				{"message", job.ID, "--prompt", ""},
			} {
				h.run(append(pre, args...)...)
			}
		}
	}
	for _, key := range []string{jobsReadOnlyKey, jobsUnknownKey, "mint_dsc_Zq8vW2xK4pL7", "Zq8vW2xK4pL7 with space"} {
		t.Setenv("MINTLIFY_API_KEY", key)
		h.run("create", "--prompt", "x")
		h.run("get", job.ID)
	}
}

// TestJobsThroughRun goes through Run, the entry main dispatches "jobs"
// to, and so the production environment (real clock and sleep, os.Stdin).
func TestJobsThroughRun(t *testing.T) {
	h := newJobsHarness(t, nil)
	id := h.api.Server.SeedJob(jobsProject, mockapi.JobSeed{ID: "job_seeded", CreatedAt: jobsStart.Add(-10 * time.Minute)})
	var out, errb bytes.Buffer
	code := Run([]string{"--mintlify.api-url", h.api.URL(), "-o", "json", "watch", id, "--interval=1ms"}, &out, &errb)
	wantExit(t, "run jobs watch", code, 0, errb.String())
	if j := decodeJob(t, out.String()); j.ID != id || j.Status != mintlify.JobCompleted {
		t.Errorf("job = %+v", j)
	}
	if strings.Contains(out.String()+errb.String(), jobsTestKey) {
		t.Error("key printed")
	}
	if n := h.api.Server.CountRequests(func(r mockapi.Request) bool { return r.Org == "acme" }); n != 1 {
		t.Errorf("%d authenticated requests, want 1", n)
	}
}
