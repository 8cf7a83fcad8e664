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

// Demo projects: a docs site with a few hundred pages and a small blog,
// under one organization key, so the shared budget is visible.
const (
	demoDocsID = "demo-docs"
	demoBlogID = "demo-blog"
	demoKeyEnv = "MINTLIFY_DEMO_API_KEY"

	// demoAPIPath is where the exporter's own port serves the simulated
	// API, so that `mintlify_exporter jobs` can be tried against the demo:
	// --mintlify.api-url=http://localhost:10491/-/demo/api
	demoAPIPath = "/-/demo/api"
	// demoAPIKey is the simulated API's only key, fixed and public so the
	// documented commands (docs/jobs.md) work as written. It is worth nothing anywhere else.
	demoAPIKey = "mint_demo_public_key"
	// demoPagePath explains the demo: the simulated API and fail-job.
	demoPagePath = "/-/demo/"
)

// demoProjectNames maps the demo's project ids to the names its metrics
// use (the project label); fail-job takes either.
var demoProjectNames = map[string]string{demoDocsID: "docs", demoBlogID: "blog"}

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

// The demo's budget. The simulated organization allows demoOrgPerHour
// analytics requests an hour, not the 100 of a real one, and the demo's
// key may spend demoBudgetPerHour of them: enough for the refreshes to
// come every minute or two, so that the simulated site's growth shows in
// increase() and rate() within minutes, and leaving room for the
// backfill of docs/backfill.md (its own default budget of 90) beside it.
// The budget logic is the product's, only its numbers are the demo's.
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
projects:
  - id: ` + demoDocsID + `
    name: docs
    windows: [24h, 7d]
    collectors: [%s]
    jobs: [job_demo_archived, job_demo_completed, job_demo_failed, job_demo_active]
  - id: ` + demoBlogID + `
    name: blog
    jobs: [job_demo_new, job_demo_late_failure]
`

// demoAPI is the simulated Mintlify API that --demo runs in-process. The
// exporter reaches it on a loopback port of its own; users reach the same
// server under demoAPIPath on the exporter's port.
type demoAPI struct {
	running *mockapi.Running
	key     string
	// trackedJobsFile is --mintlify.tracked-jobs-file, honoured in demo
	// mode so that `jobs create --track` can be tried.
	trackedJobsFile string
}

// The demo's loop (docs/loop.md, "Try it in the demo"): from the start,
// the docs' assistant gets demoGap.PerHour conversations an hour, 30% of
// them unanswered, so that the demo alert MintlifyDemoUnansweredShareHigh
// (dashboards/demo/alerts.yml) fires within minutes; a job created through
// the simulated API (the receiver's, in `make demo`) gets its pull request
// when it completes (2 minutes) and that pull request is merged
// demoMergeAfter later, after which 3% go unanswered: the share falls.
// The rate applies from the start's hour only, so the month's first walk
// costs no more requests than before.
var demoGap = mockapi.Gap{PerHour: 600, UnansweredPercent: 30, FixedPercent: 3}

const demoMergeAfter = time.Minute

// startDemo starts the simulated API on clock (the real one when nil).
// Its sites are Live: they keep being read as the clock moves.
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
			ID: j.id, Prompt: j.prompt, CreatedAt: now.Add(-j.age), Fail: j.fail,
		})
	}
	logger.Debug("Demo: simulated Mintlify API started", "loopback_url", running.URL())
	return &demoAPI{running: running, key: demoAPIKey, trackedJobsFile: trackedJobsFile}, nil
}

// apiHandler serves the simulated API under demoAPIPath.
func (d *demoAPI) apiHandler() http.Handler {
	return http.StripPrefix(demoAPIPath, d.running.Server)
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
	// Every collector kind, so the demo shows every family.
	return config.Parse([]byte(fmt.Sprintf(demoConfig, d.running.URL(), tracked, demoBudgetPerHour, strings.Join(collector.Names(), ", "))))
}

func (d *demoAPI) close() { _ = d.running.Close() }

// failJob makes an active demo job fail now, so the alerting path can be
// shown (and tested end to end) without waiting:
// POST /-/demo/fail-job?project=blog&job=job_demo_new
// project is the metrics' project label (docs, blog) or the project id.
func (d *demoAPI) failJob(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "This endpoint requires a POST request.", http.StatusMethodNotAllowed)
		return
	}
	project, job := r.FormValue("project"), r.FormValue("job")
	id := project
	for pid, name := range demoProjectNames {
		if project == name {
			id = pid
		}
	}
	if _, ok := demoProjectNames[id]; !ok {
		http.Error(w, fmt.Sprintf("unknown demo project %q: use docs or blog", project), http.StatusBadRequest)
		return
	}
	if err := d.running.Server.FailJob(id, job); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "job %s of %s (%s) failed\n", job, demoProjectNames[id], id)
}

// demoPage explains how to use the demo's simulated API and fail-job:
// the body of a page framed and styled as the landing page (page).
var demoPage = template.Must(template.New("demo").Parse(`<p><a href="/">Landing page</a> · <a href="{{.Metrics}}">Metrics</a></p>
<p>Every number on <a href="{{.Metrics}}">{{.Metrics}}</a> comes from a simulated Mintlify API
built into the exporter. Its agent jobs stay active for 2 minutes, then complete (or fail).</p>
<h2>Simulated API</h2>
<p>Base URL: <code>{{.APIURL}}</code><br>
API key (fixed, public, demo only): <code>{{.Key}}</code><br>
Projects: <code>demo-docs</code> (metrics: <code>project="docs"</code>) and <code>demo-blog</code> (<code>project="blog"</code>).</p>
<pre>export MINTLIFY_API_KEY={{.Key}} MINTLIFY_PROJECT_ID=demo-docs
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

// page serves demoPage in the landing page's frame and style (header,
// fonts, pageCSS); base is the exporter's URL as the browser sees it.
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

// trackArg is the tracked-jobs file the demo follows as the page's create
// command gives it to --track: absolute, so the command works from any
// directory, and shell-quoted; "" when the demo follows none (or the path
// could not be shown in a command).
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

// demoAPIURL is the simulated API's URL on the exporter's port, for the
// start-up log: the first listen address, with localhost for an empty or
// wildcard host.
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
