package testkit

import (
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// SeedJobs creates one agent job per status in project proj-docs of s, at
// times before now (the simulated jobs run for 2 minutes and are archived
// an hour after they end): job_active, job_done, job_failed and
// job_archived, as JobsConfig lists them.
func SeedJobs(s *mockapi.Server, now time.Time) {
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_active", Prompt: "add a page", CreatedAt: now.Add(-30 * time.Second)})
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_done", Prompt: "fix links", CreatedAt: now.Add(-10 * time.Minute)})
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_failed", Prompt: "rewrite", CreatedAt: now.Add(-10 * time.Minute), Fail: true})
	s.SeedJob("proj-docs", mockapi.JobSeed{ID: "job_archived", Prompt: "old", CreatedAt: now.Add(-70 * time.Minute), NullRef: true})
}

// JobsConfig is a configuration that follows SeedJobs' jobs of proj-docs
// (labelled docs), polled every 30 s and kept 2 h after they end. Give it
// to fmt.Sprintf with the tracked-jobs file; the API URL's %s remains.
const JobsConfig = `
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
