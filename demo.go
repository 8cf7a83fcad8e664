package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// Demo projects: a docs site with a few hundred pages and a small blog,
// under one organization key, so the shared budget is visible.
const (
	demoDocsID = "demo-docs"
	demoBlogID = "demo-blog"
	demoKeyEnv = "MINTLIFY_DEMO_API_KEY"
)

// demoJobs are seeded so that every status shows up within minutes:
// ages are relative to the start, with jobs active for two minutes and
// archived an hour after they end.
var demoJobs = []struct {
	id      string
	age     time.Duration
	prompt  string
	fail    bool
	project string
}{
	{"job_demo_archived", 3 * time.Hour, "Document the rate limits page", false, demoDocsID},
	{"job_demo_completed", 10 * time.Minute, "Fix broken links in the quickstart", false, demoDocsID},
	{"job_demo_failed", 5 * time.Minute, "Rewrite the API reference", true, demoDocsID},
	{"job_demo_active", 30 * time.Second, "Add a changelog entry for v2", false, demoDocsID},
	{"job_demo_new", 0, "Translate the landing page", false, demoBlogID},
	{"job_demo_late_failure", 0, "Restructure the navigation", true, demoBlogID},
}

const demoConfig = `
global:
  api_url: %q
  min_refresh_interval: 30s
  job_poll_interval: 15s
keys:
  - name: demo
    api_key_env: ` + demoKeyEnv + `
projects:
  - id: ` + demoDocsID + `
    name: docs
    windows: [24h, 7d]
    collectors: [pageviews, visitors, feedback, searches, assistant]
    jobs: [job_demo_archived, job_demo_completed, job_demo_failed, job_demo_active]
  - id: ` + demoBlogID + `
    name: blog
    windows: [24h, 7d]
    jobs: [job_demo_new, job_demo_late_failure]
`

// demoAPI is the simulated Mintlify API that --demo runs in-process.
type demoAPI struct {
	running *mockapi.Running
	key     string
}

func startDemo(_ context.Context, logger *slog.Logger) (*demoAPI, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	key := "mint_demo" + hex.EncodeToString(b)
	running, err := mockapi.Start(mockapi.Options{
		Keys: []mockapi.KeySpec{{Key: key, Org: "demo-org", Scope: mockapi.ReadWrite}},
		Projects: map[string]mockapi.Site{
			demoDocsID: {Seed: 1, Paths: 320, OtherTraffic: true},
			demoBlogID: {Seed: 2, Paths: 60},
		},
		RetryAfter: true,
	})
	if err != nil {
		return nil, err
	}
	now := time.Now()
	for _, j := range demoJobs {
		running.Server.SeedJob(j.project, mockapi.JobSeed{
			ID: j.id, Prompt: j.prompt, CreatedAt: now.Add(-j.age), Fail: j.fail,
		})
	}
	logger.Info("Demo: simulated Mintlify API started", "url", running.URL())
	return &demoAPI{running: running, key: key}, nil
}

func (d *demoAPI) url() string { return d.running.URL() }

func (d *demoAPI) getenv(name string) string {
	if name == demoKeyEnv {
		return d.key
	}
	return ""
}

func (d *demoAPI) config() (*config.Config, error) {
	return config.Parse([]byte(fmt.Sprintf(demoConfig, d.running.URL())))
}

func (d *demoAPI) close() { _ = d.running.Close() }

// failJob makes an active demo job fail now, so the alerting path can be
// shown (and tested end to end) without waiting:
// POST /-/demo/fail-job?project=demo-blog&job=job_demo_new
func (d *demoAPI) failJob(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "This endpoint requires a POST request.", http.StatusMethodNotAllowed)
		return
	}
	project, job := r.URL.Query().Get("project"), r.URL.Query().Get("job")
	if err := d.running.Server.FailJob(project, job); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "job %s of %s failed\n", job, project)
}
