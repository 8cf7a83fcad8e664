package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestJobsWorkedExample follows the agent-job walk-through of docs/jobs.md: create
// a job with --track, see the exporter pick it up from the tracked-jobs
// file without a reload, and see it finish with its pull request.
func TestJobsWorkedExample(t *testing.T) {
	clock := manualclock.New(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	ts, s, api, cfgPath, _ := testServerClock(t, func(o *mockapi.Options) {
		o.Keys = []mockapi.KeySpec{{Key: mainTestKey, Org: "acme", Scope: mockapi.ReadWrite}}
	}, clock)
	track := filepath.Join(filepath.Dir(cfgPath), "jobs.txt")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("keys:"), []byte("  tracked_jobs_file: "+track+"\n  job_poll_interval: 30s\nkeys:"), 1)
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(ts.URL+"/-/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("reload: %s", resp.Status)
	}

	t.Setenv("MINTLIFY_API_KEY", mainTestKey)
	t.Setenv("MINTLIFY_PROJECT_ID", "proj-docs")
	var stdout, stderr bytes.Buffer
	rc := run([]string{"jobs", "--mintlify.api-url=" + api.URL(), "--output=json", "create", "--prompt", "Document the rate limits", "--track", track}, &stdout, &stderr)
	if rc != 0 {
		t.Fatalf("jobs create: exit %d: %s", rc, stderr.String())
	}
	var job struct{ ID, Status string }
	if err := json.Unmarshal(stdout.Bytes(), &job); err != nil || job.ID == "" || job.Status != "active" {
		t.Fatalf("create printed %q (%v)", stdout.String(), err)
	}

	body := scrapeSettled(t, ts, s, nil)
	series := fmt.Sprintf(`mintlify_agent_job_status{job_id=%q,project="docs",status=`, job.ID)
	if !strings.Contains(body, series+`"active"} 1`) {
		t.Fatalf("the tracked job is not exported as active:\n%s", grepLines(body, "agent_job"))
	}
	clock.Advance(3 * time.Minute) // the simulated agent works for 2 minutes
	body = scrapeSettled(t, ts, s, nil)
	if !strings.Contains(body, series+`"completed"} 1`) {
		t.Fatalf("the job is not completed after 3 minutes:\n%s", grepLines(body, "agent_job"))
	}
	if !strings.Contains(body, fmt.Sprintf(`mintlify_agent_job_pull_request_info{job_id=%q,project="docs",url="https://github.com/`, job.ID)) {
		t.Fatal("no pull request series for the completed job")
	}
	if strings.Contains(stdout.String()+stderr.String(), mainTestKey) {
		t.Fatal("the key was printed")
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
