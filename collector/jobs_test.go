package collector_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// seedJobs creates one job per status in proj-docs (the mock's jobs run for
// 2 minutes and are archived an hour after they end).
func seedJobs(e *env) {
	s := e.api.Server
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_active", Prompt: "add a page", CreatedAt: epoch.Add(-30 * time.Second)})
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_done", Prompt: "fix links", CreatedAt: epoch.Add(-10 * time.Minute)})
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_failed", Prompt: "rewrite", CreatedAt: epoch.Add(-10 * time.Minute), Fail: true})
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_archived", Prompt: "old", CreatedAt: epoch.Add(-70 * time.Minute), NullRef: true})
}

const jobsConfig = `
global:
  api_url: %%s
  job_poll_interval: 30s
  job_retention: 2h
  tracked_jobs_file: %s
keys:
  - name: acme
    api_key_env: TEST_MINTLIFY_KEY
projects:
  - id: proj-docs
    name: docs
    jobs: [job_active, job_done, job_failed, job_archived]
`

func newJobsEnv(t *testing.T) (*env, string) {
	track := filepath.Join(t.TempDir(), "jobs.txt")
	e := newEnv(t, fmt.Sprintf(jobsConfig, track), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 3}}})
	seedJobs(e)
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

func TestJobStatesAndPolling(t *testing.T) {
	e, _ := newJobsEnv(t)
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
	if n := e.requests(mockapi.EndpointGetJob); n != 4 {
		t.Fatalf("first refresh made %d get_job calls, want 4", n)
	}
	// Only the active job is polled again; it completes after its 2 minutes.
	for range 6 {
		e.clock.Advance(30 * time.Second)
		out = e.scrape()
	}
	if got := jobStatus(t, out, "job_active"); got != "completed" {
		t.Fatalf("job_active is %q after 3 minutes", got)
	}
	polls := e.requests(mockapi.EndpointGetJob) - 4
	if polls < 3 || polls > 6 {
		t.Fatalf("%d re-polls; only the active job should be polled, once per 30 s until it ended", polls)
	}
	before := e.requests(mockapi.EndpointGetJob)
	for range 10 {
		e.clock.Advance(30 * time.Second)
		e.scrape()
	}
	if n := e.requests(mockapi.EndpointGetJob); n != before {
		t.Fatalf("%d get_job calls for jobs that have all ended", n-before)
	}
	if mustValue(t, out, `mintlify_up{collector="agent_jobs",project="docs"}`) != 1 {
		t.Error("agent_jobs collector not up")
	}
	// Analytics budget untouched by job polling.
	out = e.gather()
	if got := mustValue(t, out, `mintlify_analytics_budget_used_requests{key="acme"}`); got != float64(e.requests(mockapi.EndpointViews)) {
		t.Errorf("budget used %v, views requests %d: job polls must not count", got, e.requests(mockapi.EndpointViews))
	}
}

func TestJobRetention(t *testing.T) {
	e, _ := newJobsEnv(t)
	e.scrape()
	e.clock.Advance(2*time.Hour + time.Minute)
	out := e.scrape()
	for _, id := range []string{"job_done", "job_failed", "job_archived"} {
		if strings.Contains(out, `job_id="`+id+`"`) {
			t.Errorf("%s still exported after the 2h retention", id)
		}
	}
	// job_active ended at 12:01:30 and was archived an hour later: that is
	// inside the retention, so it is still exported, as archived.
	if got := jobStatus(t, out, "job_active"); got != "archived" {
		t.Errorf("job_active is %q; the job that ended later should still be exported", got)
	}
}

func TestJobNotFoundAndTrackedFile(t *testing.T) {
	e, track := newJobsEnv(t)
	id := e.api.Server.SeedJob("proj-docs", mockapi.JobSeed{Prompt: "tracked via file", CreatedAt: epoch})
	content := "proj-docs/" + id + "\nproj-docs/job_nope\nother-project/job_x\n"
	if err := os.WriteFile(track, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.scrape()
	if jobStatus(t, out, id) != "active" {
		t.Fatalf("job from the tracked-jobs file not exported:\n%s", out)
	}
	if mustValue(t, out, `mintlify_agent_jobs_not_found_total{project="docs"}`) != 1 {
		t.Error("404 not counted")
	}
	if strings.Contains(out, `job_id="job_nope"`) || strings.Contains(out, `job_id="job_x"`) {
		t.Error("an unknown or foreign job has series")
	}
	if mustValue(t, out, `mintlify_agent_jobs_tracked{project="docs"}`) != 6 {
		t.Error("tracked count wrong")
	}
	if !strings.Contains(e.logs.String(), "job_nope") {
		t.Error("404 not logged")
	}
}

func TestReloadKeepsDataAndBadReloadKeepsState(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
	e.scrape()
	views := e.requests(mockapi.EndpointViews)
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
	e.scrape()
	if e.requests(mockapi.EndpointViews) != views {
		t.Fatal("a reload triggered an extra sweep")
	}
	// A config whose key cannot be read is refused; the running one stays.
	bad, _ := config.Parse([]byte(fmt.Sprintf(strings.ReplaceAll(oneProject, "TEST_MINTLIFY_KEY", "UNSET_VAR"), e.api.URL())))
	if err := e.exp.Apply(bad); err == nil || !strings.Contains(err.Error(), "UNSET_VAR") {
		t.Fatalf("bad reload: err = %v", err)
	}
	if got := e.gather(); got != out {
		t.Fatal("a failed reload changed the exported data")
	}
}

// An unreadable tracked-jobs file fails the refresh (and says so) but the
// jobs listed in the config are polled and exported all the same.
func TestUnreadableTrackedFileStillPollsConfigJobs(t *testing.T) {
	dir := t.TempDir() // a directory: reading it as the file fails
	e := newEnv(t, fmt.Sprintf(jobsConfig, dir), envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 3}}})
	seedJobs(e)
	out := e.scrape()
	if got := jobStatus(t, out, "job_done"); got != "completed" {
		t.Fatalf("config job job_done is %q with an unreadable tracked-jobs file", got)
	}
	if mustValue(t, out, `mintlify_up{collector="agent_jobs",project="docs"}`) != 0 {
		t.Error("agent_jobs up although the tracked-jobs file cannot be read")
	}
	if !strings.Contains(e.logs.String(), "reading tracked job ids") {
		t.Error("the file error is not logged")
	}
}
