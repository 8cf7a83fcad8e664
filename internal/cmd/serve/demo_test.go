package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
)

// demoServer runs the exporter in --demo mode (plus args) behind an
// httptest server, as `make demo` does.
func demoServer(t *testing.T, args ...string) *httptest.Server {
	t.Helper()
	var f flags
	if _, err := newApp(&f).Parse(append([]string{"--demo"}, args...)); err != nil {
		t.Fatal(err)
	}
	src, err := newConfigSource(context.Background(), &f, quiet, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := src.load()
	if err != nil {
		src.close()
		t.Fatal(err)
	}
	s, err := newServer(&f, cfg, src, quiet, Options{})
	if err != nil {
		src.close()
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(func() {
		ts.Close()
		s.close()
		src.close()
	})
	return ts
}

// TestDemoJobsCommand drives the jobs command against a running demo
// through the documented URL and key, as the worked example in docs/jobs.md does.
func TestDemoJobsCommand(t *testing.T) {
	track := filepath.Join(t.TempDir(), "jobs.txt")
	ts := demoServer(t, "--mintlify.tracked-jobs-file="+track)
	apiURL := "--mintlify.api-url=" + ts.URL + demoAPIPath
	t.Setenv("MINTLIFY_API_KEY", demoAPIKey)
	t.Setenv("MINTLIFY_PROJECT_ID", demoDocsID)
	jobs := func(args ...string) (int, string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		rc := run(append([]string{"jobs", apiURL}, args...), &stdout, &stderr)
		return rc, stdout.String(), stderr.String()
	}
	type job struct {
		ID, Status string
		PRLink     *string `json:"prLink"`
	}
	decode := func(what, out string) job {
		t.Helper()
		var j job
		if err := json.Unmarshal([]byte(out), &j); err != nil || j.ID == "" {
			t.Fatalf("%s printed %q (%v)", what, out, err)
		}
		return j
	}

	rc, out, errs := jobs("-o", "json", "create", "--prompt", "Document the rate limits", "--track", track)
	if rc != 0 {
		t.Fatalf("create: exit %d: %s", rc, errs)
	}
	created := decode("create", out)
	if created.Status != "active" {
		t.Fatalf("created job is %s, want active", created.Status)
	}

	rc, out, errs = jobs("-o", "json", "get", created.ID)
	if rc != 0 || decode("get", out).ID != created.ID {
		t.Fatalf("get: exit %d: %s %s", rc, out, errs)
	}
	rc, out, errs = jobs("-o", "json", "message", created.ID, "--prompt", "Also mention the 429 answer")
	if rc != 0 || decode("message", out).ID != created.ID {
		t.Fatalf("message: exit %d: %s %s", rc, out, errs)
	}
	rc, out, errs = jobs("get", created.ID)
	if rc != 0 || !strings.HasPrefix(out, "ID ") || !strings.Contains(out, created.ID) {
		t.Fatalf("get (table): exit %d: %s %s", rc, out, errs)
	}

	// The exporter follows the job from the tracked-jobs file, no reload.
	series := fmt.Sprintf(`mintlify_agent_job_status{job_id=%q,project="docs",status="active"} 1`, created.ID)
	// The job poll runs in the background: wait for the series to appear.
	scrapeUntil(t, ts.URL+"/metrics", func(body string) bool { return slices.Contains(strings.Split(body, "\n"), series) })

	// A seeded job that has completed: watch ends at once with its PR.
	rc, out, errs = jobs("watch", "job_demo_completed", "--interval", "1s")
	if rc != 0 || !strings.Contains(out, "job_demo_completed  completed  https://github.com/") {
		t.Fatalf("watch a completed job: exit %d: %s %s", rc, out, errs)
	}

	// fail-job takes the project label the metrics use.
	resp, err := http.Post(ts.URL+"/-/demo/fail-job?project=docs&job="+created.ID, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("fail-job: %s", resp.Status)
	}
	rc, out, errs = jobs("watch", created.ID, "--interval", "1s")
	if rc != cli.ExitError || !strings.Contains(out, created.ID+"  failed") || !strings.Contains(errs, "failed") {
		t.Fatalf("watch a failed job: exit %d, want %d: %s %s", rc, cli.ExitError, out, errs)
	}

	// A wrong key is refused by the simulated API like a real one.
	t.Setenv("MINTLIFY_API_KEY", "mint_not_the_demo_key")
	if rc, _, errs = jobs("get", created.ID); rc != cli.ExitError || !strings.Contains(errs, "refused") {
		t.Fatalf("wrong key: exit %d: %s", rc, errs)
	}
}

func TestDemoFailJobProjects(t *testing.T) {
	ts := demoServer(t)
	for _, c := range []struct {
		project, job string
		code         int
	}{
		{"blog", "job_demo_new", 200},
		{"demo-blog", "job_demo_late_failure", 200}, // the former id works too
		{"docs", "job_demo_new", 400},               // not a job of docs
		{"nope", "job_demo_new", 400},
	} {
		resp, err := http.PostForm(ts.URL+"/-/demo/fail-job", url.Values{"project": {c.project}, "job": {c.job}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("fail-job project=%s job=%s: %s, want %d", c.project, c.job, resp.Status, c.code)
		}
	}
}

func TestDemoAPIURL(t *testing.T) {
	for in, want := range map[string]string{
		":10491":          "http://localhost:10491/-/demo/api",
		"0.0.0.0:10491":   "http://localhost:10491/-/demo/api",
		"127.0.0.1:8080":  "http://127.0.0.1:8080/-/demo/api",
		"[::]:10491":      "http://localhost:10491/-/demo/api",
		"[::1]:10491":     "http://[::1]:10491/-/demo/api",
		"exporter:10491":  "http://exporter:10491/-/demo/api",
		"no-port-at-all":  "/-/demo/api",
		"localhost:10491": "http://localhost:10491/-/demo/api",
	} {
		if got := demoAPIURL(in); got != want {
			t.Errorf("demoAPIURL(%q) = %q, want %q", in, got, want)
		}
	}
}

var hrefRE = regexp.MustCompile(`(?i)\bhref="([^"]*)"`)

// TestLandingPageLinks follows every link of the landing page, and of the
// pages it links on the same server, and expects 200 from each.
func TestLandingPageLinks(t *testing.T) {
	for _, c := range []struct {
		name      string
		ts        func(t *testing.T) *httptest.Server
		want      []string // links that must be there
		forbidden []string // links that must not
	}{
		{"file config", func(t *testing.T) *httptest.Server {
			ts, _, _, _, _ := testServer(t, nil)
			return ts
		}, []string{"/metrics", "/-/healthy"}, []string{"/debug/pprof/", demoPagePath}},
		{"demo", func(t *testing.T) *httptest.Server { return demoServer(t) },
			[]string{"/metrics", "/-/healthy", demoPagePath}, []string{"/debug/pprof/"}},
		{"pprof", func(t *testing.T) *httptest.Server { return demoServer(t, "--web.enable-pprof") },
			[]string{"/metrics", "/debug/pprof/", "/debug/pprof/heap"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := c.ts(t)
			seen := map[string]bool{}
			queue := []string{"/"}
			for len(queue) > 0 {
				path := queue[0]
				queue = queue[1:]
				if seen[path] {
					continue
				}
				seen[path] = true
				code, body := get(t, ts.URL+path, nil)
				if code != 200 {
					t.Errorf("GET %s: %d", path, code)
					continue
				}
				if path != "/" && path != demoPagePath {
					continue // follow links of the HTML pages only
				}
				for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
					u, err := url.Parse(m[1])
					if err != nil {
						t.Errorf("%s links to %q: %v", path, m[1], err)
						continue
					}
					if u.IsAbs() {
						continue // not ours
					}
					ref, _ := url.Parse(path)
					queue = append(queue, ref.ResolveReference(u).RequestURI())
				}
			}
			for _, w := range c.want {
				if !seen[w] {
					t.Errorf("no link to %s (links: %v)", w, seen)
				}
			}
			for _, f := range c.forbidden {
				if seen[f] {
					t.Errorf("a link to %s although it is not served", f)
				}
			}
		})
	}
	// Without --web.enable-pprof, the profiles are not served either.
	ts := demoServer(t)
	if code, _ := get(t, ts.URL+"/debug/pprof/heap", nil); code != 404 {
		t.Errorf("/debug/pprof/heap without --web.enable-pprof: %d, want 404", code)
	}
}

// shellWords splits a command line as sh does.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `set -- `+line+`; printf '%s\0' "$@"`).Output()
	if err != nil {
		t.Fatalf("sh cannot read %s: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestDemoPageCommandsRun runs the commands the /-/demo/ page shows, as a
// user pastes them: the job created with the page's create command is
// tracked and shows on /metrics, and the watch command's flags are the
// jobs command's. Without a tracked-jobs file the page says so and shows
// no --track.
func TestDemoPageCommandsRun(t *testing.T) {
	track := filepath.Join(t.TempDir(), "it's jobs.txt")
	ts := demoServer(t, "--mintlify.tracked-jobs-file="+track)
	_, page := get(t, ts.URL+demoPagePath, nil)
	pre := regexp.MustCompile(`(?s)<pre>(export .*?)</pre>`).FindStringSubmatch(page)
	if pre == nil {
		t.Fatalf("no commands on the page:\n%s", page)
	}
	var create, watch []string
	for _, line := range strings.Split(html.UnescapeString(pre[1]), "\n") {
		words := shellWords(t, line)
		switch {
		case words[0] == "export":
			for _, kv := range words[1:] {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
		case slices.Contains(words, "create"):
			create = words
		case slices.Contains(words, "watch"):
			watch = words
		}
	}
	if create == nil || watch == nil || create[0] != "mintlify_exporter" || watch[0] != "mintlify_exporter" {
		t.Fatalf("commands %q and %q on the page:\n%s", create, watch, pre[1])
	}
	var stdout, stderr bytes.Buffer
	if rc := run(create[1:], &stdout, &stderr); rc != 0 || !slices.Contains(create, "--track") {
		t.Fatalf("%q: exit %d: %s", create, rc, stderr.String())
	}
	id := strings.Fields(strings.Split(stdout.String(), "\n")[1])[0]
	series := fmt.Sprintf(`mintlify_agent_job_status{job_id=%q,project="docs",status="active"} 1`, id)
	scrapeUntil(t, ts.URL+"/metrics", func(body string) bool { return slices.Contains(strings.Split(body, "\n"), series) })

	// The seeded completed job ends a watch at once.
	i := slices.Index(watch, "JOB_ID")
	if i < 0 {
		t.Fatalf("no JOB_ID in %q", watch)
	}
	watch[i] = "job_demo_completed"
	stdout.Reset()
	stderr.Reset()
	if rc := run(watch[1:], &stdout, &stderr); rc != 0 || !strings.Contains(stdout.String(), "completed") {
		t.Fatalf("%q: exit %d: %s %s", watch, rc, stdout.String(), stderr.String())
	}

	ts = demoServer(t)
	_, page = get(t, ts.URL+demoPagePath, nil)
	if strings.Contains(page, "--track") && !strings.Contains(page, "add <code>--track FILE</code>") ||
		!strings.Contains(page, "follows no tracked-jobs file") {
		t.Errorf("the page without a tracked-jobs file:\n%s", page)
	}
}
