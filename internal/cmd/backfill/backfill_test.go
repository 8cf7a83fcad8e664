package backfill

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve/servetest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

const (
	backfillTestKey = "mint_backfilltest_Rk4nV8wQ2sLx"
	backfillProject = "proj-history"
)

// backfillNow is the simulated present: the middle of a month, so a
// range of past days crosses the month boundary before it.
var backfillNow = time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)

// backfillHarness runs the backfill command against a simulated API
// whose clock only moves when the command sleeps.
type backfillHarness struct {
	t      *testing.T
	api    *mockapi.Running
	clock  *manualclock.Clock
	site   mockapi.Site
	dir    string
	sleeps []time.Duration
	// noStorage: run with --storage.path '' instead of statePath.
	noStorage bool
	// stdout is what the last run wrote there.
	stdout string
}

func newBackfillHarness(t *testing.T, site mockapi.Site, opt func(*mockapi.Options)) *backfillHarness {
	t.Helper()
	clock := manualclock.New(backfillNow)
	mo := mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: backfillTestKey, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{backfillProject: site},
		Clock:    clock,
	}
	if opt != nil {
		opt(&mo)
	}
	api := testkit.StartAPI(t, mo)
	t.Setenv("MINTLIFY_API_KEY", backfillTestKey)
	t.Setenv("MINTLIFY_PROJECT_ID", "")
	return &backfillHarness{t: t, api: api, clock: clock, site: site, dir: t.TempDir()}
}

// run runs `backfill args…` with the API URL and project added, under ctx;
// afterPage may be nil.
func (h *backfillHarness) run(ctx context.Context, afterPage func(int), args ...string) (code int, stderr string) {
	h.t.Helper()
	var out, errb bytes.Buffer
	env := &backfillEnv{
		stdout: &out, stderr: &errb, getenv: os.Getenv, now: h.clock.Now,
		sleep: func(ctx context.Context, d time.Duration) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			h.sleeps = append(h.sleeps, d)
			h.clock.Advance(d)
			return nil
		},
		afterPage: afterPage,
	}
	storage := h.statePath()
	if h.noStorage {
		storage = ""
	}
	full := append([]string{"--mintlify.api-url", h.api.URL(), "--mintlify.project-id", backfillProject, "--storage.path", storage}, args...)
	code = env.run(ctx, full)
	h.stdout = out.String()
	if strings.Contains(out.String()+errb.String(), backfillTestKey) {
		h.t.Errorf("the API key shows in the output")
	}
	return code, errb.String()
}

// statePath is the state file the backfill shares its budget through.
func (h *backfillHarness) statePath() string { return filepath.Join(h.dir, "state", "state.json") }

func (h *backfillHarness) views() []mockapi.Request {
	return h.api.Server.Requests()
}

// sample is one line of the output.
type omLine struct {
	name, labels string
	value        float64
	ts           int64
}

var omSampleLine = regexp.MustCompile(`^([a-z_]+)\{([^}]*)\} ([0-9.e+]+) ([0-9]+)$`)

func parseOM(t *testing.T, body string) []omLine {
	t.Helper()
	if !strings.HasSuffix(body, "\n# EOF\n") {
		t.Fatalf("output does not end with # EOF:\n%s", tail(body))
	}
	var out []omLine
	for _, line := range strings.Split(strings.TrimSuffix(body, "# EOF\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "# HELP ") || strings.HasPrefix(line, "# TYPE ") {
			continue
		}
		m := omSampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a sample line: %q", line)
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		ts, _ := strconv.ParseInt(m[4], 10, 64)
		out = append(out, omLine{m[1], m[2], v, ts})
	}
	return out
}

func tail(s string) string {
	if len(s) > 300 {
		return s[len(s)-300:]
	}
	return s
}

func day(s string) time.Time {
	t, err := time.Parse(mintlify.DayLayout, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestBackfillMonthToDateCounters: one request per day, each asking for
// [1st of the month, next day) in day dates; the values are the
// simulated API's month-to-date counts at the end of each day, with the
// end of the day as timestamp, the counter restarting on the 1st; the
// families are grouped and promtool makes blocks of the file.
func TestBackfillMonthToDateCounters(t *testing.T) {
	site := mockapi.Site{Seed: 7, Paths: 40, OtherTraffic: true}
	h := newBackfillHarness(t, site, nil)
	out := filepath.Join(h.dir, "history.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-08-28", "--to", "2026-09-03", "--label", "job=mintlify", "--label", "instance=host:9866", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "1 project(s) × 7 day(s) (2026-08-28 to 2026-09-03): at least 7, at most 2800 requests (pageviews 7;") {
		t.Errorf("no cost line before the run:\n%s", stderr)
	}
	reqs := h.views()
	if len(reqs) != 7 {
		t.Fatalf("%d requests, want 7 (one per day)", len(reqs))
	}
	for i, r := range reqs {
		d := day("2026-08-28").AddDate(0, 0, i)
		q, _ := url.ParseQuery(r.Query)
		wantFrom := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).Format(mintlify.DayLayout)
		if r.Endpoint != mockapi.EndpointViews || r.Status != 200 || q.Get("dateFrom") != wantFrom || q.Get("dateTo") != d.AddDate(0, 0, 1).Format(mintlify.DayLayout) || q.Get("limit") != "250" {
			t.Errorf("request %d: %s %s status %d, want views dateFrom=%s dateTo=%s limit=250", i, r.Endpoint, r.Query, r.Status, wantFrom, d.AddDate(0, 0, 1).Format(mintlify.DayLayout))
		}
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("%s.partial left behind after a complete run (%v)", out, err)
	}

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	lines := parseOM(t, body)
	// Families grouped: all site samples, then all page samples.
	if i, j := strings.Index(body, "# TYPE mintlify_site_page_views counter"), strings.Index(body, "# TYPE mintlify_page_views counter"); i < 0 || j < i {
		t.Errorf("families missing or out of order:\n%s", body[:min(len(body), 600)])
	}
	got := map[string]float64{}
	lastSeries, lastTS := "", int64(0)
	for _, l := range lines {
		key := l.name + "{" + l.labels + "}"
		if key == lastSeries && l.ts <= lastTS {
			t.Errorf("%s: timestamps not increasing", key)
		}
		lastSeries, lastTS = key, l.ts
		got[fmt.Sprintf("%s %d", key, l.ts)] = l.value
	}
	for d := day("2026-08-28"); !d.After(day("2026-09-03")); d = d.AddDate(0, 0, 1) {
		end := d.AddDate(0, 0, 1)
		totals, rows := site.Views(time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC), end)
		ts := end.Unix()
		labels := `instance="host:9866",job="mintlify",project="proj-history",traffic=`
		for traffic, want := range map[string]int64{"human": totals.Human, "ai": totals.AI, "other": totals.Total - totals.Human - totals.AI} {
			if v, ok := got[fmt.Sprintf("mintlify_site_page_views_total{%s%q} %d", labels, traffic, ts)]; !ok || v != float64(want) {
				t.Errorf("day %s site %s: got %v (present %v), want %d", d.Format(mintlify.DayLayout), traffic, v, ok, want)
			}
		}
		for _, r := range rows {
			pl := fmt.Sprintf(`instance="host:9866",job="mintlify",path=%q,project="proj-history",traffic=`, r.Path)
			if v := got[fmt.Sprintf("mintlify_page_views_total{%s\"human\"} %d", pl, ts)]; v != float64(r.Human) {
				t.Errorf("day %s path %s human: got %v, want %d", d.Format(mintlify.DayLayout), r.Path, v, r.Human)
			}
			if v := got[fmt.Sprintf("mintlify_page_views_total{%s\"ai\"} %d", pl, ts)]; v != float64(r.AI) {
				t.Errorf("day %s path %s ai: got %v, want %d", d.Format(mintlify.DayLayout), r.Path, v, r.AI)
			}
		}
	}
	// The counter restarts with the month: the value at the end of the
	// 1st is below the one at the end of August 31.
	k := `mintlify_site_page_views_total{instance="host:9866",job="mintlify",project="proj-history",traffic="human"} `
	if aug, sep := got[k+strconv.FormatInt(day("2026-09-01").Unix(), 10)], got[k+strconv.FormatInt(day("2026-09-02").Unix(), 10)]; !(sep < aug) || sep <= 0 {
		t.Errorf("no reset on the 1st: end of Aug 31 %v, end of Sep 1 %v", aug, sep)
	}
	checkPromtoolBlocks(t, out)
}

// checkPromtoolBlocks runs promtool tsdb create-blocks-from openmetrics.
func checkPromtoolBlocks(t *testing.T, file string) {
	t.Helper()
	path, ok := toolcheck.Find(t, "promtool", "apt-get install prometheus", "promtool tsdb create-blocks-from openmetrics of the backfill")
	if !ok {
		return
	}
	dir := t.TempDir()
	out, err := exec.Command(path, "tsdb", "create-blocks-from", "openmetrics", file, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) == 0 {
		t.Errorf("promtool made no block:\n%s", out)
	}
}

// TestBackfillSiteOnlyAndPaths: --site-only asks for one row a day and
// writes no page series; --paths 600 costs three requests a day (250,
// 250, 100 rows) and keeps the 600 most viewed paths.
func TestBackfillSiteOnlyAndPaths(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 3, Paths: 700}, nil)
	out := filepath.Join(h.dir, "site.om")
	if code, stderr := h.run(context.Background(), nil, "--from", "2026-09-01", "--to", "2026-09-02", "--site-only", "--project-name", "proj-history=docs", "--output", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, r := range h.views() {
		if q, _ := url.ParseQuery(r.Query); q.Get("limit") != "1" {
			t.Errorf("--site-only asked for limit %s", q.Get("limit"))
		}
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), `{project="docs",traffic="human"}`) || strings.Contains(string(b), "proj-history") {
		t.Errorf("--project-name: the project label is not the name:\n%s", b)
	}
	if strings.Contains(string(b), "mintlify_page_views_total") || len(parseOM(t, string(b))) != 4 {
		t.Errorf("--site-only output is not 2 days × human, ai:\n%s", b)
	}

	h.api.Server.ResetRequests()
	out = filepath.Join(h.dir, "paths.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-01", "--to", "2026-09-02", "--paths", "600", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var limits []string
	for _, r := range h.views() {
		q, _ := url.ParseQuery(r.Query)
		limits = append(limits, q.Get("offset")+":"+q.Get("limit"))
	}
	if want := "0:250 250:250 500:250 0:250 250:250 500:250"; strings.Join(limits, " ") != want {
		t.Errorf("pages %v, want %s", limits, want)
	}
	b, _ = os.ReadFile(out)
	paths := map[string]bool{}
	for _, l := range parseOM(t, string(b)) {
		if l.name == "mintlify_page_views_total" {
			paths[regexp.MustCompile(`path="([^"]*)"`).FindStringSubmatch(l.labels)[1]] = true
		}
	}
	_, rows := h.site.Views(day("2026-09-01"), day("2026-09-02"))
	if len(paths) < 600 || !paths[rows[0].Path] || !paths[rows[599].Path] {
		t.Errorf("%d paths in the output, want the 600 most viewed of each day", len(paths))
	}
	checkPromtoolBlocks(t, out)
}

// TestBackfillBadInput: each mistake exits 2 with a message naming it,
// before any request.
func TestBackfillBadInput(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 1, Paths: 5}, nil)
	existing := filepath.Join(h.dir, "exists.om")
	if err := os.WriteFile(existing, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(h.dir, "out.om")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "2026-09-10", "--to", "2026-09-01", "--output", out}, "--from 2026-09-10 is after --to 2026-09-01"},
		{[]string{"--from", "2026-09-10", "--to", "2026-09-20", "--output", out}, "--to 2026-09-20 is today or in the future: the last complete UTC day is 2026-09-14"},
		{[]string{"--from", "2026-09-15", "--output", out}, "--from 2026-09-15 is today or in the future"},
		{[]string{"--from", "2026-9-1", "--output", out}, `--from "2026-9-1" is not a date of the form YYYY-MM-DD`},
		{[]string{"--from", "2026-09-01", "--output", existing}, "exists; give --force to overwrite it"},
		{[]string{"--from", "2026-09-01", "--label", "job", "--output", out}, `--label "job": want NAME=VALUE`},
		{[]string{"--from", "2026-09-01", "--label", "1job=x", "--output", out}, `--label "1job=x"`},
		{[]string{"--from", "2026-09-01", "--label", "__name__=x", "--output", out}, "reserved by Prometheus"},
		{[]string{"--from", "2026-09-01", "--label", "project=x", "--output", out}, "project is a label of the counters themselves"},
		{[]string{"--from", "2026-09-01", "--label", "job=a", "--label", "job=b", "--output", out}, "--label job given twice"},
		{[]string{"--from", "2026-09-01", "--site-only", "--paths", "10", "--output", out}, "either --paths or --site-only"},
		{[]string{"--from", "2026-09-01", "--site-only", "--paths", "250", "--output", out}, "either --paths or --site-only"},
		{[]string{"--from", "2026-09-01", "--paths", "0", "--output", out}, "--paths must be at least 1"},
		{[]string{"--from", "2026-09-01", "--budget", "0", "--output", out}, "--budget must be at least 1"},
		{[]string{"--from", "2026-09-01", "--mintlify.request-timeout", "876000h", "--output", out}, "--mintlify.request-timeout must be at least 1s and at most 1h0m0s, got 876000h0m0s"},
		{[]string{"--from", "2026-09-01", "--project-name", "other=docs", "--output", out}, "other is not one of the --mintlify.project-id ids"},
		{[]string{"--from", "2026-09-01", "--project-name", "proj-history", "--output", out}, "want ID=NAME"},
		{[]string{"--from", "2026-09-01"}, "required flag(s) '--output' not provided"},
		{[]string{"--from", "2026-09-01", "--output", ""}, "--output is empty"},
		{[]string{"--from", "2026-01-01", "--output", out}, "give --yes"},
	} {
		code, stderr := h.run(context.Background(), nil, c.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if n := len(h.views()); n != 0 {
		t.Errorf("%d requests made for bad input", n)
	}
	if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("a refused run left %s.partial (%v)", out, err)
	}
	// A range the API refuses (400) is the command line's fault too.
	h.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Status: 400})
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-01", "--output", out)
	if code != cli.ExitUsage || !strings.Contains(stderr, "the API refused the range 2026-09-01 to 2026-09-02") {
		t.Errorf("400: exit %d, stderr %q", code, stderr)
	}
}

// TestBackfillPacedWithinBudget: a range needing three hours of a budget
// of 20 is refused without --yes, and with it never makes more than 20
// requests in any sliding hour, sees no 429, and waits on the clock.
func TestBackfillPacedWithinBudget(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 2, Paths: 30}, func(o *mockapi.Options) { o.AnalyticsBudgetPerHour = 20 })
	out := filepath.Join(h.dir, "paced.om")
	args := []string{"--from", "2026-07-01", "--to", "2026-08-19", "--budget", "20", "--output", out}
	code, stderr := h.run(context.Background(), nil, args...)
	if code != cli.ExitUsage || !strings.Contains(stderr, ": at least 50, at most 20000 requests (pageviews 50; the pages of a walk beyond its first are known only as it reads them: pageviews): 2.5 hour(s) of a budget of 20 requests per hour") {
		t.Fatalf("without --yes: exit %d, stderr %s", code, stderr)
	}
	if len(h.views()) != 0 {
		t.Fatal("requests made before --yes")
	}
	start := h.clock.Now()
	code, stderr = h.run(context.Background(), nil, append(args, "--yes")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	reqs := h.views()
	if len(reqs) != 50 {
		t.Fatalf("%d requests, want 50", len(reqs))
	}
	for i, r := range reqs {
		if r.Status != 200 {
			t.Errorf("request %d: status %d", i, r.Status)
		}
		n := 0
		for _, o := range reqs[:i+1] {
			if o.Time.After(r.Time.Add(-time.Hour)) {
				n++
			}
		}
		if n > 20 {
			t.Fatalf("%d requests in the hour up to request %d (at %s), budget 20", n, i, r.Time)
		}
	}
	if took := h.clock.Now().Sub(start); took < 2*time.Hour || took > 3*time.Hour {
		t.Errorf("run took %s of clock time, want between 2h and 3h for 50 requests at 20/h", took)
	}
	if !strings.Contains(stderr, "waiting") || !strings.Contains(stderr, "(50/50 requests)") {
		t.Errorf("no progress or wait lines:\n%s", stderr)
	}
}

// TestBackfillResumesByteIdentical: a run interrupted after some pages
// (and one whose journal's last line was cut short by a crash) is
// finished by the same command, to the bytes of an uninterrupted run,
// without fetching again what the journal holds.
func TestBackfillResumesByteIdentical(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 9, Paths: 600, OtherTraffic: true}, nil)
	args := func(out string) []string {
		return []string{"--from", "2026-08-27", "--to", "2026-09-04", "--paths", "520", "--label", "job=mintlify", "--output", out}
	}
	whole := filepath.Join(h.dir, "whole.om")
	if code, stderr := h.run(context.Background(), nil, args(whole)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, _ := os.ReadFile(whole)
	perRun := len(h.views()) // 9 days × 3 pages
	if perRun != 27 {
		t.Fatalf("%d requests, want 27", perRun)
	}

	for _, cut := range []int{0, 7} { // bytes cut from the journal's end
		t.Run(fmt.Sprintf("cut%d", cut), func(t *testing.T) {
			h.api.Server.ResetRequests()
			out := filepath.Join(h.dir, fmt.Sprintf("resumed%d.om", cut))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code, stderr := h.run(ctx, func(n int) {
				if n == 11 {
					cancel()
				}
			}, args(out)...)
			if code != cli.ExitError || !strings.Contains(stderr, "interrupted; 11 of 27 requests are done") {
				t.Fatalf("interrupted run: exit %d, stderr %s", code, stderr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Fatalf("an interrupted run wrote %s", out)
			}
			if cut > 0 {
				fi, err := os.Stat(out + ".partial")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(out+".partial", fi.Size()-int64(cut)); err != nil {
					t.Fatal(err)
				}
			}
			code, stderr = h.run(context.Background(), nil, args(out)...)
			if code != 0 {
				t.Fatalf("resumed run: exit %d, stderr %s", code, stderr)
			}
			// The journal's walks tell the site's size: 27 requests
			// expected in all, of which the journal holds 11 (10 when
			// its last line was cut).
			wantLeft := "27 expected with each walk as long as the site's last, 11 done"
			if cut > 0 {
				wantLeft = "27 expected with each walk as long as the site's last, 10 done"
			}
			if !strings.Contains(stderr, wantLeft) {
				t.Errorf("resume cost line: want %q in\n%s", wantLeft, stderr)
			}
			got, _ := os.ReadFile(out)
			if !bytes.Equal(got, want) {
				t.Errorf("resumed output (%d bytes) differs from an uninterrupted run's (%d bytes)", len(got), len(want))
			}
			extra := 0
			if cut > 0 {
				extra = 1 // the page whose line was cut is fetched again
			}
			if n := len(h.views()); n != perRun+extra {
				t.Errorf("interrupted + resumed runs made %d requests, want %d", n, perRun+extra)
			}
		})
	}
}

// TestBackfillStdoutResumes: with --output - the text goes to stdout,
// and only once the run is complete: an interrupted run writes nothing
// there and names its journal (next to the state file, or in the user's
// cache directory without one); the same command then writes to stdout
// the bytes of one uninterrupted run (and of --output FILE) without
// fetching again what the journal holds, and removes the journal.
func TestBackfillStdoutResumes(t *testing.T) {
	for _, storage := range []bool{true, false} {
		t.Run(fmt.Sprintf("storage=%v", storage), func(t *testing.T) {
			h := newBackfillHarness(t, mockapi.Site{Seed: 12, Paths: 300, OtherTraffic: true}, nil)
			cache := filepath.Join(h.dir, "cache")
			t.Setenv("XDG_CACHE_HOME", cache)
			h.noStorage = !storage
			wantDir := filepath.Dir(h.statePath())
			if !storage {
				wantDir = filepath.Join(cache, cli.Name)
			}
			args := []string{"--from", "2026-08-29", "--to", "2026-09-03", "--paths", "260", "--label", "job=mintlify"}

			file := filepath.Join(h.dir, "file.om")
			if code, stderr := h.run(context.Background(), nil, append(args, "--output", file)...); code != 0 || h.stdout != "" {
				t.Fatalf("--output FILE: exit %d, stdout %q, stderr %s", code, h.stdout, stderr)
			}
			want, _ := os.ReadFile(file)
			code, stderr := h.run(context.Background(), nil, append(args, "--output", "-")...)
			if code != 0 {
				t.Fatalf("uninterrupted: exit %d: %s", code, stderr)
			}
			parseOM(t, h.stdout) // nothing but samples, HELP, TYPE and # EOF
			if h.stdout != string(want) {
				t.Fatalf("stdout (%d bytes) differs from --output FILE (%d bytes)", len(h.stdout), len(want))
			}
			if strings.Contains(stderr, "# EOF") {
				t.Errorf("OpenMetrics on stderr")
			}

			h.api.Server.ResetRequests()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code, stderr = h.run(ctx, func(n int) {
				if n == 5 {
					cancel()
				}
			}, append(args, "--output", "-")...)
			if code != cli.ExitError || h.stdout != "" {
				t.Fatalf("interrupted: exit %d, stdout %q, stderr %s", code, h.stdout, stderr)
			}
			m := regexp.MustCompile(`kept in (\S+): run the same command again`).FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("the interrupted message names no journal:\n%s", stderr)
			}
			journal := m[1]
			if filepath.Dir(journal) != wantDir {
				t.Errorf("journal %s, want it in %s", journal, wantDir)
			}
			if _, err := os.Stat(journal); err != nil {
				t.Fatalf("journal: %v", err)
			}
			code, stderr = h.run(context.Background(), nil, append(args, "--output", "-")...)
			if code != 0 {
				t.Fatalf("resumed: exit %d: %s", code, stderr)
			}
			if h.stdout != string(want) {
				t.Errorf("resumed stdout (%d bytes) differs from an uninterrupted run's (%d bytes)", len(h.stdout), len(want))
			}
			if !strings.Contains(stderr, "left to make ("+journal+")") {
				t.Errorf("the resumed run does not say it continues %s:\n%s", journal, stderr)
			}
			if n := len(h.views()); n != 12 {
				t.Errorf("interrupted + resumed runs made %d requests, want 12 (6 days × 2 pages)", n)
			}
			if _, err := os.Stat(journal); !os.IsNotExist(err) {
				t.Errorf("journal left after a complete run (%v)", err)
			}
		})
	}
}

// TestBackfillJournalOfOtherArguments: FILE.partial of another range is
// not resumed into this one: exit 2, unless --force starts again.
func TestBackfillJournalOfOtherArguments(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 4, Paths: 10}, nil)
	out := filepath.Join(h.dir, "h.om")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if code, _ := h.run(ctx, func(int) { cancel() }, "--from", "2026-09-01", "--to", "2026-09-05", "--output", out); code != cli.ExitError {
		t.Fatalf("interrupted run: exit %d", code)
	}
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-02", "--to", "2026-09-05", "--output", out)
	if code != cli.ExitUsage || !strings.Contains(stderr, "progress of a backfill with other arguments") {
		t.Fatalf("other arguments: exit %d, stderr %s", code, stderr)
	}
	code, stderr = h.run(context.Background(), nil, "--from", "2026-09-02", "--to", "2026-09-05", "--force", "--output", out)
	if code != 0 {
		t.Fatalf("--force: exit %d, stderr %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(string(b), strconv.FormatInt(day("2026-09-02").Unix(), 10)) {
		t.Errorf("a day of the abandoned run's range is in the output")
	}
}

// TestBackfillFlagsDocumented: docs/backfill.md has a row for every flag
// of the backfill command and none for a flag it does not have.
func TestBackfillFlagsDocumented(t *testing.T) {
	app, _ := newBackfillApp(&backfillOptions{})
	testkit.CheckFlagsDocumented(t, "backfill.md", app, "backfill")
}

// TestBackfillPrometheusIncrease loads a backfill that crosses a month
// boundary into Prometheus through promtool and checks that
// increase(mintlify_site_page_views_total[1d]) at the end of each day is
// the simulated API's count of that day, the 1st of the month included.
func TestBackfillPrometheusIncrease(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus")
	}
	site := mockapi.Site{Seed: 11, Paths: 20}
	h := newBackfillHarness(t, site, nil)
	out := filepath.Join(h.dir, "history.om")
	if code, stderr := h.run(context.Background(), nil, "--from", "2026-08-20", "--to", "2026-09-10", "--site-only", "--label", "job=mintlify", "--output", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	promtool, ok := toolcheck.Find(t, "promtool", "apt-get install prometheus", "Prometheus over the backfilled blocks")
	if !ok {
		return
	}
	prometheus, ok := toolcheck.Find(t, "prometheus", "apt-get install prometheus", "Prometheus over the backfilled blocks")
	if !ok {
		return
	}
	data := filepath.Join(h.dir, "data")
	if b, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", out, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool: %v\n%s", err, b)
	}
	cfg := filepath.Join(h.dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startPrometheus(t, prometheus, func() string { return "127.0.0.1:0" }, "--config.file="+cfg, "--storage.tsdb.path="+data,
		"--storage.tsdb.retention.time=100y")

	query := func(expr string, at time.Time) (string, error) {
		u := "http://" + addr + "/api/v1/query?" + url.Values{"query": {expr}, "time": {strconv.FormatInt(at.Unix(), 10)}}.Encode()
		resp, err := http.Get(u)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		var r struct {
			Status string `json:"status"`
			Data   struct {
				Result []struct {
					Value [2]any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return "", err
		}
		if r.Status != "success" || len(r.Data.Result) != 1 {
			return "", fmt.Errorf("status %s, %d series", r.Status, len(r.Data.Result))
		}
		s, _ := r.Data.Result[0].Value[1].(string)
		return s, nil
	}
	for _, d := range []string{"2026-08-25", "2026-08-31", "2026-09-01", "2026-09-02", "2026-09-10"} {
		from := day(d)
		end := from.AddDate(0, 0, 1)
		totals, _ := site.Views(from, end)
		got, err := query(`increase(mintlify_site_page_views_total{job="mintlify",project="proj-history",traffic="human"}[1d])`, end)
		if err != nil {
			t.Errorf("day %s: %v", d, err)
			continue
		}
		v, _ := strconv.ParseFloat(got, 64)
		if diff := v - float64(totals.Human); diff > 1e-6*float64(totals.Human)+1e-9 || -diff > 1e-6*float64(totals.Human)+1e-9 {
			t.Errorf("day %s: increase() %s, the API counted %d human views that day", d, got, totals.Human)
		}
	}
}

// startPrometheus starts Prometheus with args and --web.listen-address
// pick(), waits until it says it is ready to receive web requests, and
// returns the address it listens on (from its log, so pick may give port
// 0 and let the kernel choose). When the address is taken (its log says
// so and it exits), it tries again with another pick(), a few times. It
// is killed at the end of the test.
func startPrometheus(t *testing.T, bin string, pick func() string, args ...string) string {
	t.Helper()
	const attempts = 4
	var failures []string
	guard := testkit.HangGuard(t)
	for range attempts {
		logs := newLogWatch("Server is ready to receive web requests.", `msg="Listening on"`)
		cmd := exec.Command(bin, append(args, "--web.listen-address="+pick())...)
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stop := func() { _ = cmd.Process.Kill(); <-exited }
		select {
		case <-logs.found:
			t.Cleanup(stop)
			m := regexp.MustCompile(`msg="Listening on".*address=(\S+)`).FindStringSubmatch(logs.String())
			if m == nil {
				t.Fatalf("Prometheus is ready but did not log its address:\n%s", logs.String())
			}
			addr := strings.Trim(m[1], `"`)
			if failures != nil {
				t.Logf("Prometheus listens on %s after %d attempt(s) on taken addresses", addr, len(failures))
			}
			return addr
		case <-exited:
			if !strings.Contains(logs.String(), "address already in use") {
				t.Fatalf("Prometheus exited before it was ready:\n%s", logs.String())
			}
			failures = append(failures, logs.String())
		case <-guard.Done():
			// Its start time is the machine's business: only the test's
			// own deadline bounds it.
			stop()
			t.Fatalf("Prometheus not ready by the test's deadline:\n%s", logs.String())
		}
	}
	t.Fatalf("Prometheus found its address taken %d times; last log:\n%s", attempts, failures[len(failures)-1])
	return ""
}

// logWatch collects a process's log and closes found once every one of
// wants has appeared (in any order: Prometheus logs its ready line and the
// address it listens on from different goroutines).
type logWatch struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wants []string
	seen  bool
	found chan struct{}
}

func newLogWatch(wants ...string) *logWatch {
	return &logWatch{wants: wants, found: make(chan struct{})}
}

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if !w.seen && !slices.ContainsFunc(w.wants, func(s string) bool { return !strings.Contains(w.b.String(), s) }) {
		w.seen = true
		close(w.found)
	}
	return n, err
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestStartPrometheusRetriesTakenAddress: an address someone else took
// between the pick and Prometheus' bind makes it exit; startPrometheus
// then tries another address instead of failing the test.
func TestStartPrometheusRetriesTakenAddress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus")
	}
	bin, ok := toolcheck.Find(t, "prometheus", "apt-get install prometheus", "Prometheus for the backfill tests")
	if !ok {
		return
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	picks := []string{taken.Addr().String(), taken.Addr().String(), "127.0.0.1:0"}
	n := 0
	pick := func() string { n++; return picks[n-1] }
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startPrometheus(t, bin, pick, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"))
	if n != 3 || addr == taken.Addr().String() {
		t.Fatalf("%d picks, listening on %s; want the third pick, not the taken %s", n, addr, taken.Addr())
	}
	resp, err := http.Get("http://" + addr + "/-/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/-/ready answered %d", resp.StatusCode)
	}
}

// TestBackfillSitsOutRateLimit: a 429 (someone else spends the same
// organization's budget) is waited out for its Retry-After on the clock,
// and the run then completes; five in a row end it, resumably.
func TestBackfillSitsOutRateLimit(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 5, Paths: 10}, nil)
	h.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Status: 429, RetryAfter: "120", Remaining: 2})
	out := filepath.Join(h.dir, "limited.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-01", "--to", "2026-09-03", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := fmt.Sprint(h.sleeps); got != "[2m0s 2m0s]" {
		t.Errorf("sleeps %s, want two of Retry-After 2m0s", got)
	}
	if n := len(h.views()); n != 5 {
		t.Errorf("%d requests, want 3 + 2 refused", n)
	}

	h.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Status: 429})
	out = filepath.Join(h.dir, "gaveup.om")
	code, stderr = h.run(context.Background(), nil, "--from", "2026-09-01", "--to", "2026-09-03", "--output", out)
	if code != cli.ExitError || !strings.Contains(stderr, "kept in "+out+".partial") {
		t.Errorf("endless 429: exit %d, stderr %s", code, stderr)
	}
}

// TestBackfillSharesBudgetWithExporter: a backfill and a running exporter
// using one key and one state file, on one simulated clock, never make
// more than the key's budget (90) in any sliding hour together and never
// get a 429, while both make requests in the same hours.
func TestBackfillSharesBudgetWithExporter(t *testing.T) {
	clock := manualclock.New(backfillNow)
	ts, statePath, api := testServerClock(t, func(o *mockapi.Options) {
		// 12 pages per walk and three walks (month, 24h, 7d): the
		// exporter alone wants more than the hour.
		o.Projects["proj-docs"] = mockapi.Site{Seed: 1, Paths: 3000}
		o.Projects[backfillProject] = mockapi.Site{Seed: 2, Paths: 50}
	}, clock)
	scrape := func() {
		servetest.ScrapeSettled(t, ts, map[string]string{"X-Prometheus-Scrape-Timeout-Seconds": "5"})
	}
	scrape()
	t.Setenv("MINTLIFY_API_KEY", mainTestKey)
	t.Setenv("MINTLIFY_PROJECT_ID", "")
	var errb bytes.Buffer
	limit := backfillNow.Add(48 * time.Hour)
	env := &backfillEnv{
		stdout: &bytes.Buffer{}, stderr: &errb, getenv: os.Getenv, now: clock.Now,
		sleep: func(ctx context.Context, d time.Duration) error {
			// The exporter is scraped every 5 simulated minutes while the
			// backfill waits, and refreshes whatever is due.
			for d > 0 {
				step := min(d, 5*time.Minute)
				clock.Advance(step)
				d -= step
				scrape()
			}
			if clock.Now().After(limit) {
				return fmt.Errorf("still running after 48 simulated hours")
			}
			return nil
		},
		afterPage: func(n int) {
			clock.Advance(20 * time.Second)
			if n%5 == 0 {
				scrape()
			}
		},
	}
	out := filepath.Join(t.TempDir(), "shared.om")
	start := clock.Now()
	code := env.run(context.Background(), []string{"--mintlify.api-url", api.URL(), "--mintlify.project-id", backfillProject,
		"--from", "2026-07-01", "--to", "2026-09-14", "--yes", "--storage.path", statePath, "--output", out})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "sharing the budget with the exporter through " + statePath + "\n"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errb.String())
	}
	end := clock.Now()
	reqs := api.Server.Requests()
	var backfill, exporterDuring int
	for i, r := range reqs {
		if r.Endpoint == mockapi.EndpointCreateJob || r.Endpoint == mockapi.EndpointGetJob || r.Endpoint == mockapi.EndpointSendMessage {
			continue
		}
		if r.Status == 429 {
			t.Errorf("request %d (%s %s at %s) got 429", i, r.Endpoint, r.ProjectID, r.Time)
		}
		if r.ProjectID == backfillProject {
			backfill++
		} else if r.Time.After(start) && !r.Time.After(end) {
			exporterDuring++
		}
		n := 0
		for _, o := range reqs[:i+1] {
			if o.Endpoint != mockapi.EndpointCreateJob && o.Endpoint != mockapi.EndpointGetJob && o.Endpoint != mockapi.EndpointSendMessage && o.Time.After(r.Time.Add(-time.Hour)) {
				n++
			}
		}
		if n > 90 {
			t.Fatalf("%d analytics requests in the hour up to %s, budget 90", n, r.Time)
		}
	}
	if backfill != 76 || exporterDuring < 30 {
		t.Errorf("backfill made %d requests (want 76), the exporter %d while it ran (want some hours' worth)", backfill, exporterDuring)
	}
	t.Logf("backfill %d requests, exporter %d during it, %s of simulated time", backfill, exporterDuring, end.Sub(start))
}

// TestBackfillAsksWhenTheHourIsSpent: the confirmation is about what is
// left this hour: after a run of 85 requests, a run of 10 more needs
// --yes, and with it waits for the hour to free up instead of going over.
func TestBackfillAsksWhenTheHourIsSpent(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 6, Paths: 10}, nil)
	if code, stderr := h.run(context.Background(), nil, "--from", "2026-06-01", "--to", "2026-08-24", "--site-only", "--output", filepath.Join(h.dir, "a.om")); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	h.api.Server.ResetRequests()
	args := []string{"--from", "2026-09-01", "--to", "2026-09-10", "--site-only", "--output", filepath.Join(h.dir, "b.om")}
	code, stderr := h.run(context.Background(), nil, args...)
	if code != cli.ExitUsage || !strings.Contains(stderr, "5 of them are left this hour") || !strings.Contains(stderr, "(10 requests, 5 left of 90 per hour); give --yes") {
		t.Fatalf("second run without --yes: exit %d: %s", code, stderr)
	}
	if len(h.views()) != 0 {
		t.Fatal("requests made before --yes")
	}
	if code, stderr = h.run(context.Background(), nil, append(args, "--yes")...); code != 0 {
		t.Fatalf("second run with --yes: exit %d: %s", code, stderr)
	}
	if len(h.sleeps) == 0 {
		t.Error("the second run did not wait for the hour to free up")
	}
}

// TestBackfillProgressBar: on a terminal the progress is one line
// redrawn in place, ended before any other message and at the end.
func TestBackfillProgressBar(t *testing.T) {
	var errb bytes.Buffer
	e := &backfillEnv{stderr: &errb, tty: true}
	task := backfillTask{"p", day("2026-09-01")}
	e.showProgress(task, 1, 4)
	e.showProgress(task, 2, 4)
	e.failf(cli.ExitError, "boom")
	e.showProgress(task, 4, 4)
	e.endBar()
	want := "\r[#######.......................] 1/4 requests, p 2026-09-01\x1b[K" +
		"\r[###############...............] 2/4 requests, p 2026-09-01\x1b[K\n" +
		backfillCmdName + ": boom\n" +
		"\r[##############################] 4/4 requests, p 2026-09-01\x1b[K\n"
	if got := errb.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	errb.Reset()
	e.tty = false
	e.showProgress(task, 1, 4)
	if got := errb.String(); got != backfillCmdName+": project p 2026-09-01 done (1/4 requests)\n" {
		t.Errorf("not a terminal: %q", got)
	}
}

// prometheus242Accept is the Accept header of Prometheus 2.42's scrapes.
const prometheus242Accept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

// TestBackfillWritesNoCreated: the live exporter answers Prometheus'
// scrape (which asks for OpenMetrics first) in text 0.0.4, which has no
// _created lines, so Prometheus never sees the counters' creation times
// from it; the backfill writes none either, since Prometheus 2.42 would
// store them as ..._created series the live exporter never produces.
func TestBackfillWritesNoCreated(t *testing.T) {
	ts, _, _ := testServer(t, nil)
	servetest.ScrapeSettled(t, ts, nil)
	for _, accept := range []string{prometheus242Accept, "application/openmetrics-text; version=1.0.0"} {
		req, _ := http.NewRequest("GET", ts.URL+"/metrics", nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
			t.Errorf("Accept %s: Content-Type %q, want text 0.0.4", accept, ct)
		}
		if !strings.Contains(string(body), "mintlify_site_page_views_total{") {
			t.Fatalf("Accept %s: no site counter in the scrape:\n%s", accept, body)
		}
		if regexp.MustCompile(`(?m)^[a-z_]+_created[{ ]`).Match(body) {
			t.Errorf("Accept %s: the scrape has _created lines", accept)
		}
	}

	h := newBackfillHarness(t, mockapi.Site{Seed: 8, Paths: 10, OtherTraffic: true}, nil)
	out := filepath.Join(h.dir, "h.om")
	if code, stderr := h.run(context.Background(), nil, "--from", "2026-08-30", "--to", "2026-09-02", "--output", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	if len(parseOM(t, string(b))) == 0 || strings.Contains(string(b), "_created") {
		t.Errorf("the backfill wrote _created lines, or nothing:\n%s", tail(string(b)))
	}
}

// TestBackfillConfigFile: with the exporter's --config.file the projects,
// their labels (name, or the id), their keys and budgets, the API URL and
// the path filters come from the configuration; --project picks
// configured projects by name or id; a project's collectors list decides
// its other counters; flags that the configuration
// settles are refused, as is a --project it does not have.
func TestBackfillConfigFile(t *testing.T) {
	const otherKey = "mint_backfillother_Q8zX3vN5tLp2"
	h := newBackfillHarness(t, mockapi.Site{Seed: 21, Paths: 30}, func(o *mockapi.Options) {
		o.Keys = append(o.Keys, mockapi.KeySpec{Key: otherKey, Org: "other", Scope: mockapi.ReadOnly})
		o.Projects["proj-ref"] = mockapi.Site{Seed: 22, Paths: 30}
	})
	t.Setenv("BF_MAIN_KEY", backfillTestKey)
	t.Setenv("MINTLIFY_API_KEY", "") // the configuration says where keys are
	keyFile := filepath.Join(h.dir, "other.key")
	if err := os.WriteFile(keyFile, []byte(otherKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(h.dir, "mintlify.yml")
	write := func(body string) {
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(fmt.Sprintf(`global:
  api_url: %s
keys:
  - name: main
    api_key_env: BF_MAIN_KEY
    budget_per_hour: 50
    reserve: 10
  - name: second
    api_key_file: other.key
projects:
  - id: %s
    name: docs
    key: main
    exclude_paths: ['-1[0-9]$']
  - id: proj-ref
    key: second
    max_paths: 3
    collectors: [pageviews, searches]
`, h.api.URL(), backfillProject))
	// run without the harness' --mintlify.api-url and --project.
	run := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		env := &backfillEnv{stdout: &out, stderr: &errb, getenv: os.Getenv, now: h.clock.Now,
			sleep: func(ctx context.Context, d time.Duration) error { h.clock.Advance(d); return ctx.Err() }}
		code := env.run(context.Background(), append([]string{"--config.file", cfg, "--storage.path", h.statePath(), "--from", "2026-09-01", "--to", "2026-09-03"}, args...))
		for _, k := range []string{backfillTestKey, otherKey} {
			if strings.Contains(out.String()+errb.String(), k) {
				t.Errorf("an API key shows in the output")
			}
		}
		return code, out.String(), errb.String()
	}
	projects := func() map[string]string { // project id → org of the key used
		m := map[string]string{}
		for _, r := range h.views() {
			m[r.ProjectID] = r.Org
		}
		return m
	}

	// By name: one project, its name as label, its key's budget (50 - 10),
	// its exclude_paths. --project is the deprecated name of
	// --mintlify.project-id: it still works, with a warning.
	code, body, stderr := run("--project", "docs", "--output", "-")
	if code != 0 {
		t.Fatalf("--project docs: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, backfillCmdName+": --project is deprecated and will be removed; use --mintlify.project-id instead") {
		t.Errorf("no deprecation warning for --project:\n%s", stderr)
	}
	if got := fmt.Sprint(projects()); got != "map[proj-history:acme]" {
		t.Errorf("--project docs asked for %s", got)
	}
	if !strings.Contains(stderr, "budget of 40 requests per hour") {
		t.Errorf("not the key's budget (budget_per_hour 50 - reserve 10):\n%s", stderr)
	}
	excluded := regexp.MustCompile(`path="[^"]*-1[0-9]"`)
	if !strings.Contains(body, `mintlify_site_page_views_total{project="docs",traffic="human"}`) ||
		!strings.Contains(body, `mintlify_page_views_total{path="`) || excluded.MatchString(body) || strings.Contains(body, backfillProject) {
		t.Errorf("want the label docs and no excluded path:\n%s", tail(body))
	}

	// All configured projects, each with its own key; the unnamed one is
	// labelled by its id, and keeps at most its max_paths.
	h.api.Server.ResetRequests()
	code, body, stderr = run("--output", "-")
	if code != 0 {
		t.Fatalf("all projects: exit %d: %s", code, stderr)
	}
	if got := fmt.Sprint(projects()); got != "map[proj-history:acme proj-ref:other]" {
		t.Errorf("all projects asked for %s (project:org)", got)
	}
	if !strings.Contains(stderr, "key main at least 3, at most 1200 at 40 per hour, key second at least 6, at most 1203 at 90 per hour") ||
		!strings.Contains(stderr, "at least 9, at most 2403 requests (pageviews 6, searches 3;") {
		t.Errorf("no cost per key and project:\n%s", stderr)
	}
	if !strings.Contains(body, `mintlify_searches_total{project="proj-ref"}`) || strings.Contains(body, `mintlify_searches_total{project="docs"}`) {
		t.Errorf("searches not as the projects' collectors say:\n%s", tail(body))
	}
	refPaths := map[string]bool{}
	for _, l := range parseOM(t, body) {
		if l.name == "mintlify_page_views_total" && strings.Contains(l.labels, `project="proj-ref"`) && l.ts == day("2026-09-02").Unix() {
			refPaths[l.labels[:strings.Index(l.labels, ",")]] = true
		}
	}
	if len(refPaths) != 3 {
		t.Errorf("proj-ref has %d paths on a day, want its max_paths 3", len(refPaths))
	}
	// By id.
	h.api.Server.ResetRequests()
	if code, _, stderr = run("--mintlify.project-id", "proj-ref", "--site-only", "--output", "-"); code != 0 || fmt.Sprint(projects()) != "map[proj-ref:other]" {
		t.Errorf("--project proj-ref: exit %d, asked for %v: %s", code, projects(), stderr)
	}

	h.api.Server.ResetRequests()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mintlify.project-id", "nope"}, `--mintlify.project-id "nope" is neither the id nor the name of a project in ` + cfg + " (names: docs, proj-ref)"},
		{[]string{"--project-name", backfillProject + "=x"}, "--project-name and --config.file"},
		{[]string{"--mintlify.api-url", h.api.URL()}, "--mintlify.api-url and --config.file"},
		{[]string{"--mintlify.api-key-file", keyFile}, "--mintlify.api-key-file and --config.file"},
	} {
		code, body, stderr := run(append(c.args, "--output", "-")...)
		if code != cli.ExitUsage || body != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	t.Setenv("BF_MAIN_KEY", "")
	if code, _, stderr := run("--output", "-"); code != cli.ExitUsage || !strings.Contains(stderr, `keys[0] "main"`) || !strings.Contains(stderr, "BF_MAIN_KEY is empty") {
		t.Errorf("missing key: exit %d, stderr %q", code, stderr)
	}
	write("global:\n  api_url: " + h.api.URL() + "\n  pagesize: 3\n")
	if code, _, stderr := run("--output", "-"); code != cli.ExitUsage || !strings.Contains(stderr, "--config.file: "+cfg) || !strings.Contains(stderr, "pagesize") {
		t.Errorf("bad configuration: exit %d, stderr %q", code, stderr)
	}
	if n := len(h.views()); n != 0 {
		t.Errorf("%d requests made for bad input", n)
	}
}

// TestBackfillOtherCounters: --collector.feedback, .searches and
// .assistant add one request per project and day each, priced in the
// cost line, asking for the same month-to-date range as the views; the
// values are the simulated API's, the series have the names and label
// names of the live exporter's, and an interrupted run resumes to the
// same bytes.
func TestBackfillOtherCounters(t *testing.T) {
	// The live exporter's label names of each family, from a scrape.
	ts, _, _ := testServerClock(t, nil, nil, "--collector.feedback", "--collector.searches", "--collector.assistant")
	labelNames := func(body string) map[string]string {
		names := map[string]string{}
		for _, line := range strings.Split(body, "\n") {
			m := regexp.MustCompile(`^(mintlify_(?:page_feedback|searches|assistant_queries)_total)\{([^}]*)\}`).FindStringSubmatch(line)
			if m == nil {
				continue
			}
			var ls []string
			for _, pair := range regexp.MustCompile(`([a-z_]+)="`).FindAllStringSubmatch(m[2], -1) {
				if pair[1] != "job" {
					ls = append(ls, pair[1])
				}
			}
			names[m[1]] = strings.Join(ls, ",")
		}
		return names
	}
	live := labelNames(servetest.ScrapeSettled(t, ts, nil))
	if len(live) != 3 {
		t.Fatalf("the live exporter exports %v, want the three families", live)
	}

	site := mockapi.Site{Seed: 14, Paths: 40}
	h := newBackfillHarness(t, site, nil)
	args := func(out string) []string {
		return []string{"--from", "2026-08-30", "--to", "2026-09-02", "--collector.feedback", "--collector.searches", "--collector.assistant", "--label", "job=mintlify", "--output", out}
	}
	whole := filepath.Join(h.dir, "whole.om")
	code, stderr := h.run(context.Background(), nil, args(whole)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, ": at least 16, at most 1612 requests (pageviews 4, feedback 4, searches 4, assistant 4;") {
		t.Errorf("the cost line does not price the other counters:\n%s", stderr)
	}
	byEndpoint := map[string]int{}
	for _, r := range h.views() {
		byEndpoint[r.Endpoint]++
		q, _ := url.ParseQuery(r.Query)
		if to := day(q.Get("dateTo")).AddDate(0, 0, -1); q.Get("dateFrom") != monthStart(to).Format(mintlify.DayLayout) || r.Status != 200 {
			t.Errorf("%s %s: status %d, not the month to date", r.Endpoint, r.Query, r.Status)
		}
	}
	if fmt.Sprint(byEndpoint) != "map[caller_stats:4 feedback_by_page:4 searches:4 views:4]" {
		t.Errorf("requests by endpoint: %v, want 4 of each", byEndpoint)
	}
	b, _ := os.ReadFile(whole)
	body := string(b)
	if got := labelNames(body); fmt.Sprint(got) != fmt.Sprint(live) {
		t.Errorf("label names %v, the live exporter's %v", got, live)
	}
	got := map[string]float64{}
	for _, l := range parseOM(t, body) {
		got[fmt.Sprintf("%s{%s} %d", l.name, l.labels, l.ts)] = l.value
	}
	for d := day("2026-08-30"); !d.After(day("2026-09-02")); d = d.AddDate(0, 0, 1) {
		from, end := monthStart(d), d.AddDate(0, 0, 1)
		ts := end.Unix()
		_, total := site.Searches(from, end)
		if v, ok := got[fmt.Sprintf(`mintlify_searches_total{job="mintlify",project="proj-history"} %d`, ts)]; !ok || v != float64(total) {
			t.Errorf("%s searches: %v (%v), want %d", d.Format(mintlify.DayLayout), v, ok, total)
		}
		cs := site.CallerStats(from, end)
		for caller, want := range map[string]int64{"web": cs.Web, "api": cs.API, "other": cs.Other} {
			if v, ok := got[fmt.Sprintf(`mintlify_assistant_queries_total{caller=%q,job="mintlify",project="proj-history"} %d`, caller, ts)]; !ok || v != float64(want) {
				t.Errorf("%s assistant %s: %v (%v), want %d", d.Format(mintlify.DayLayout), caller, v, ok, want)
			}
		}
		rows := site.Feedback(from, end)
		if len(rows) == 0 {
			t.Fatalf("%s: the simulated site has no feedback", d.Format(mintlify.DayLayout))
		}
		for _, r := range rows {
			for kind, want := range map[string]int64{"thumbs_up": r.ThumbsUp, "thumbs_down": r.ThumbsDown, "code_snippet": r.Code} {
				if v, ok := got[fmt.Sprintf(`mintlify_page_feedback_total{job="mintlify",kind=%q,path=%q,project="proj-history"} %d`, kind, r.Path, ts)]; !ok || v != float64(want) {
					t.Errorf("%s feedback %s %s: %v (%v), want %d", d.Format(mintlify.DayLayout), r.Path, kind, v, ok, want)
				}
			}
		}
	}
	checkPromtoolBlocks(t, whole)

	// Interrupted in the middle of a day's requests, then resumed.
	h.api.Server.ResetRequests()
	out := filepath.Join(h.dir, "resumed.om")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if code, stderr := h.run(ctx, func(n int) {
		if n == 6 {
			cancel()
		}
	}, args(out)...); code != cli.ExitError {
		t.Fatalf("interrupted: exit %d: %s", code, stderr)
	}
	if code, stderr := h.run(context.Background(), nil, args(out)...); code != 0 || !strings.Contains(stderr, "6 done, at least 10, at most 808 left to make") {
		t.Fatalf("resumed: exit %d: %s", code, stderr)
	}
	if resumed, _ := os.ReadFile(out); !bytes.Equal(resumed, b) {
		t.Errorf("resumed output (%d bytes) differs from an uninterrupted run's (%d bytes)", len(resumed), len(b))
	}
	if n := len(h.views()); n != 16 {
		t.Errorf("interrupted + resumed runs made %d requests, want 16", n)
	}
}

// Under load Prometheus may log that it is ready before the address it
// listens on: the watch waits for both, in either order.
func TestLogWatchWaitsForEveryLine(t *testing.T) {
	w := newLogWatch("ready", `msg="Listening on"`)
	closed := func() bool {
		select {
		case <-w.found:
			return true
		default:
			return false
		}
	}
	fmt.Fprintln(w, `level=info msg="Server is ready"`)
	if closed() {
		t.Fatal("found before the address was logged")
	}
	fmt.Fprintln(w, `level=info msg="Listening on" address=127.0.0.1:9`)
	if !closed() {
		t.Fatal("not found once both lines were logged")
	}
	fmt.Fprintln(w, "more") // a later write does not close it again
}

// monthStart is the 1st of day's month, worked out here apart from the
// code under test.
func monthStart(day time.Time) time.Time {
	return day.AddDate(0, 0, 1-day.Day())
}
