package exporter_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

func newJobsEnv(t *testing.T) (*env, string) {
	track := filepath.Join(t.TempDir(), "jobs.txt")
	e := newEnv(t, fmt.Sprintf(testkit.JobsConfig, track), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 3}}})
	testkit.SeedJobs(e.api.Server, epoch)
	return e, track
}

func jobStatus(t *testing.T, out, id string) string {
	t.Helper()
	cur := ""
	for _, s := range []string{"active", "completed", "archived", "failed"} {
		v, ok := value(out, `mintlify_agent_job_status{job_id="`+id+`",project="docs",status="`+s+`"}`)
		if !ok {
			return ""
		}
		if v == 1 {
			if cur != "" {
				t.Fatalf("job %s has two current statuses", id)
			}
			cur = s
		}
	}
	return cur
}

// TestJobSeries: the agent-job series of each job (status, pull
// request, archived and created times, info), the poller's counts and
// its up. (The polling itself is TestJobStatesAndPolling, in
// internal/engine.)
func TestJobSeries(t *testing.T) {
	e, track := newJobsEnv(t)
	if err := os.WriteFile(track, []byte("proj-docs/job_nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.scrape()
	for id, want := range map[string]string{"job_active": "active", "job_done": "completed", "job_failed": "failed", "job_archived": "archived"} {
		if got := jobStatus(t, out, id); got != want {
			t.Errorf("%s status %q, want %q", id, got, want)
		}
	}
	if !strings.Contains(out, `mintlify_agent_job_pull_request_info{job_id="job_done",project="docs",url="https://github.com/`) {
		t.Error("completed job has no pull request series")
	}
	if strings.Contains(out, `mintlify_agent_job_pull_request_info{job_id="job_active"`) {
		t.Error("active job has a pull request series")
	}
	if _, ok := value(out, `mintlify_agent_job_archived_timestamp_seconds{job_id="job_archived",project="docs"}`); !ok {
		t.Error("archived job has no archived timestamp")
	}
	if _, ok := value(out, `mintlify_agent_job_archived_timestamp_seconds{job_id="job_done",project="docs"}`); ok {
		t.Error("non-archived job has an archived timestamp")
	}
	if got := mustValue(t, out, `mintlify_agent_job_created_timestamp_seconds{job_id="job_done",project="docs"}`); got != float64(epoch.Add(-10*time.Minute).Unix()) {
		t.Errorf("created timestamp %v", got)
	}
	if !strings.Contains(out, `mintlify_agent_job_info{job_id="job_archived",model=`) || !strings.Contains(out, `ref=""`) {
		t.Error("info series missing, or a null ref not shown as empty")
	}
	if strings.Contains(out, `job_id="job_nope"`) {
		t.Error("an unknown job has series")
	}
	if mustValue(t, out, `mintlify_agent_jobs_not_found_total{project="docs"}`) != 1 {
		t.Error("404 not counted")
	}
	if mustValue(t, out, `mintlify_agent_jobs_tracked{project="docs"}`) != 5 {
		t.Error("tracked count wrong")
	}
	if mustValue(t, out, `mintlify_up{collector="agent_jobs",project="docs"}`) != 1 {
		t.Error("agent_jobs collector not up")
	}
}

// TestReloadRefiltersTheSeries: the data a reload keeps is exported
// through the new configuration's path filters at once, and a refused
// reload leaves /metrics as it was. (What the engine keeps is
// TestReloadKeepsDataAndBadReloadKeepsState, in internal/engine.)
func TestReloadRefiltersTheSeries(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
	e.scrape()
	cfg, err := config.Parse([]byte(fmt.Sprintf(docsConfig("", "    windows: [24h]\n    include_paths: ['^/docs/']\n"), e.api.URL())))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.exp.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	out := e.gather()
	if n := e.count("mintlify_page_views_total"); n == 0 || n == 20 && strings.Contains(out, `path="/blog`) {
		t.Fatalf("the cache was not kept and re-filtered on reload (%d series)", n)
	}
	bad, _ := config.Parse([]byte(fmt.Sprintf(strings.ReplaceAll(oneProject, "TEST_MINTLIFY_KEY", "UNSET_VAR"), e.api.URL())))
	if err := e.exp.Apply(bad); err == nil {
		t.Fatal("a reload with an unreadable key was accepted")
	}
	if got := e.gather(); got != out {
		t.Fatal("a failed reload changed the exported data")
	}
}
