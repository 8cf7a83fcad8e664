package serve

import (
	"context"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// One organization key for both demo projects, so the shared budget is visible.
const (
	demoDocsID = "docs"
	demoBlogID = "blog"
	demoKeyEnv = "MINTLIFY_DEMO_API_KEY"

	// demoAPIPath serves the simulated API on the exporter's port, so `jobs` can be tried against the demo.
	demoAPIPath = "/-/demo/api"
	// demoAPIKey is fixed and public so docs/jobs.md's commands work as written; it is worth nothing anywhere else.
	demoAPIKey   = "mint_demo_public_key"
	demoPagePath = "/-/demo/"
)

// demoFormerIDs (0.1.0's ids) are still taken, so commands written with them keep working.
var demoFormerIDs = map[string]string{"demo-docs": demoDocsID, "demo-blog": demoBlogID}

// demoJobs' ages make every status show up within minutes.
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

// demoSeededRepo tells the seeded jobs from one created through the API (the receiver's).
const demoSeededRepo = "https://github.com/demo-org/seeded-jobs"

// The demo's budget lets refreshes come every minute or two, leaving room for docs/backfill.md's backfill (90).
const (
	demoOrgPerHour    = 1000
	demoBudgetPerHour = 600
)

const demoConfig = `
global:
  api_url: %q
  min_refresh_interval: 30s
  job_poll_interval: 15s%s
keys:
  - name: demo
    api_key_env: ` + demoKeyEnv + `
    budget_per_hour: %d
    expires_at: %s
projects:
  - id: ` + demoDocsID + `
    windows: [24h, 7d]
    collectors: [%s]
    jobs: [job_demo_archived, job_demo_completed, job_demo_failed, job_demo_active]
  - id: ` + demoBlogID + `
    jobs: [job_demo_new, job_demo_late_failure]
`

// demoAPI is the simulated API --demo runs in-process, also served under demoAPIPath on the exporter's port.
type demoAPI struct {
	running         *mockapi.Running
	key             string
	trackedJobsFile string
	keyExpiresAt    string // 60 days after the start, for the days-left panel
}

// demoGap makes MintlifyDemoUnansweredShareHigh fire within minutes, and fall once a job's pull request merges
// (docs/loop.md); the rate applies from the start's hour only, so the first walk costs no more.
var demoGap = mockapi.Gap{PerHour: 600, UnansweredPercent: 30, FixedPercent: 3, Pages: 5}

const demoMergeAfter = time.Minute

func startDemo(_ context.Context, logger *slog.Logger, trackedJobsFile string, clock mockapi.Clock) (*demoAPI, error) {
	if clock == nil {
		clock = mockapi.RealClock{}
	}
	now := clock.Now()
	gap := demoGap
	gap.From = now
	running, err := mockapi.Start(mockapi.Options{
		Clock: clock,
		Keys:  []mockapi.KeySpec{{Key: demoAPIKey, Org: "demo-org", Scope: mockapi.ReadWrite}},
		Projects: map[string]mockapi.Site{
			demoDocsID: {Seed: 1, Paths: 320, OtherTraffic: true, Live: true, Gap: &gap},
			demoBlogID: {Seed: 2, Paths: 60, Live: true},
		},
		RetryAfter:             true,
		AnalyticsBudgetPerHour: demoOrgPerHour,
		MergeAfter:             demoMergeAfter,
	})
	if err != nil {
		return nil, err
	}
	for _, j := range demoJobs {
		running.Server.SeedJob(j.project, mockapi.JobSeed{
			ID: j.id, Prompt: j.prompt, CreatedAt: now.Add(-j.age), Fail: j.fail, Repository: demoSeededRepo,
		})
	}
	logger.Debug("Demo: simulated Mintlify API started", "loopback_url", running.URL())
	return &demoAPI{running: running, key: demoAPIKey, trackedJobsFile: trackedJobsFile,
		keyExpiresAt: now.UTC().AddDate(0, 0, 60).Format(config.DateLayout)}, nil
}

func (d *demoAPI) apiHandler() http.Handler {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /v1/analytics/{id}/…, /v2/agent/{id}/…, /v1/workflow/{id}/…
		if seg := strings.SplitN(r.URL.Path, "/", 5); len(seg) > 3 && demoFormerIDs[seg[3]] != "" {
			seg[3] = demoFormerIDs[seg[3]]
			r = r.Clone(r.Context())
			r.URL.Path, r.URL.RawPath = strings.Join(seg, "/"), ""
		}
		d.running.Server.ServeHTTP(w, r)
	})
	return http.StripPrefix(demoAPIPath, api)
}

func (d *demoAPI) getenv(name string) string {
	if name == demoKeyEnv {
		return d.key
	}
	return ""
}

func (d *demoAPI) config() (*config.Config, error) {
	tracked := ""
	if d.trackedJobsFile != "" {
		tracked = fmt.Sprintf("\n  tracked_jobs_file: %q", d.trackedJobsFile)
	}
	return config.Parse([]byte(fmt.Sprintf(demoConfig, d.running.URL(), tracked, demoBudgetPerHour, d.keyExpiresAt, strings.Join(collector.Names(), ", "))))
}

func (d *demoAPI) close() { _ = d.running.Close() }

// failJob fails an active demo job now, so the alerting path can be shown without waiting.
func (d *demoAPI) failJob(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "This endpoint requires a POST request.", http.StatusMethodNotAllowed)
		return
	}
	project, job := r.FormValue("project"), r.FormValue("job")
	id := project
	if former, ok := demoFormerIDs[project]; ok {
		id = former
	}
	if id != demoDocsID && id != demoBlogID {
		http.Error(w, fmt.Sprintf("unknown demo project %q: use docs or blog", project), http.StatusBadRequest)
		return
	}
	if err := d.running.Server.FailJob(id, job); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "job %s of %s failed\n", job, id)
}

var demoPage = template.Must(template.New("demo").Parse(`<p><a href="/">Landing page</a> · <a href="{{.Metrics}}">Metrics</a></p>
<p>Every number on <a href="{{.Metrics}}">{{.Metrics}}</a> comes from a simulated Mintlify API
built into the exporter. Its agent jobs stay active for 2 minutes, then complete (or fail).
The six seeded jobs (<code>job_demo_…</code>) are in the repository <code>seeded-jobs</code>; a job created
through the API (the receiver's, or yours below) is in the project's own.</p>
<h2>Simulated API</h2>
<p>Base URL: <code>{{.APIURL}}</code><br>
API key (fixed, public, demo only): <code>{{.Key}}</code><br>
Projects: <code>docs</code> and <code>blog</code>, the ids the metrics' <code>project</code> label shows too.</p>
<pre>export MINTLIFY_API_KEY={{.Key}} MINTLIFY_PROJECT_ID=docs
mintlify_exporter jobs --mintlify.api-url={{.APIURL}} create --prompt "Document the rate limits"{{with .Track}} --track {{.}}{{end}}
mintlify_exporter jobs --mintlify.api-url={{.APIURL}} watch JOB_ID --interval 15s</pre>
{{if .Track}}<p><code>--track</code> appends the new job to the tracked-jobs file this demo follows, so it shows
on <a href="{{.Metrics}}">{{.Metrics}}</a> at the next job poll.</p>
{{else}}<p>This demo follows no tracked-jobs file, so a job created here does not show on
<a href="{{.Metrics}}">{{.Metrics}}</a>: start the demo with
<code>--mintlify.tracked-jobs-file=FILE</code> (<code>make demo</code> does, with <code>.demo/jobs.txt</code>)
and add <code>--track FILE</code> to the create command.</p>
{{end}}
<h2>Make a job fail</h2>
<p>For the alerting path (<code>MintlifyAgentJobFailed</code>): an active job fails at once.</p>
<form method="post" action="fail-job">
<label>project <input name="project" value="blog"></label>
<label>job <input name="job" value="job_demo_new"></label>
<input type="submit" value="Fail the job">
</form>
<pre>curl -X POST '{{.FailJob}}?project=blog&amp;job=job_demo_new'</pre>
`))

func (d *demoAPI) page(metricsPath string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != demoPagePath {
			http.NotFound(w, r)
			return
		}
		base := "http://" + r.Host
		var body strings.Builder
		if err := demoPage.Execute(&body, map[string]string{
			"Track":   d.trackArg(),
			"Metrics": metricsPath,
			"APIURL":  base + demoAPIPath,
			"Key":     d.key,
			"FailJob": base + demoPagePath + "fail-job",
		}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		lp, err := web.NewLandingPage(web.LandingConfig{
			RoutePrefix: demoPagePath,
			Name:        exporterName,
			Description: "Demo: the simulated Mintlify API",
			Version:     version.Info(),
			ExtraHTML:   body.String(),
			ExtraCSS:    pageCSS,
			Profiling:   "false",
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		lp.ServeHTTP(w, r)
	}
}

// trackArg is absolute, so the page's command works from any directory, and shell-quoted.
func (d *demoAPI) trackArg() string {
	if d.trackedJobsFile == "" {
		return ""
	}
	p, err := filepath.Abs(d.trackedJobsFile)
	if err != nil {
		return ""
	}
	q, _ := cli.ShellCommand(p)
	return q
}

func demoAPIURL(listen string) string {
	i := strings.LastIndex(listen, ":")
	if i < 0 {
		return demoAPIPath
	}
	host, port := strings.Trim(listen[:i], "[]"), listen[i+1:]
	switch host {
	case "", "0.0.0.0", "::":
		host = "localhost"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return "http://" + host + ":" + port + demoAPIPath
}
