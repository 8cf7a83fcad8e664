package serve_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve/servetest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// conversationCounts sums the docs' mintlify_assistant_conversations_total
// series of a scrape: the unanswered ones and all of them.
func conversationCounts(scrape string) (unanswered, total float64) {
	for _, line := range strings.Split(scrape, "\n") {
		rest, ok := strings.CutPrefix(line, "mintlify_assistant_conversations_total{")
		if !ok || !strings.Contains(rest, `project="docs"`) {
			continue
		}
		v, err := strconv.ParseFloat(rest[strings.LastIndexByte(rest, ' ')+1:], 64)
		if err != nil {
			continue
		}
		total += v
		if strings.Contains(rest, `resolution="unanswered"`) {
			unanswered += v
		}
	}
	return unanswered, total
}

// TestDemoLoopFiresOnceResolvesOnce plays the demo's loop on the test's
// clock as the e2e's Prometheus sees it: scrapes every 15 s, the rule
// evaluated every 5 s with increase()'s window and extrapolation.
// MintlifyDemoUnansweredShareHigh (dashboards/demo/alerts.yml: the
// unanswered share of increase(...[5m]) above 15% with at least 10
// conversations, for 1m) creates a job on the simulated API when it fires,
// as the receiver does. Over 30 minutes it must fire once and
// resolve once, and once the share fell below 15% it must stay there.
// Several start minutes, as a run of `make demo` may start at any.
func TestDemoLoopFiresOnceResolvesOnce(t *testing.T) {
	for _, start := range []time.Time{
		time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 20, 0, 51, 13, 0, time.UTC),
		time.Date(2026, 11, 20, 8, 47, 0, 0, time.UTC),
		time.Date(2026, 11, 20, 13, 50, 7, 0, time.UTC),
	} {
		t.Run(start.Format("15:04:05"), func(t *testing.T) {
			t.Parallel() // each on its own clock and exporter; the wall time is mostly waiting
			demoLoop(t, start)
		})
	}
}

type loopSample struct {
	at   time.Time
	u, n float64
}

// windowShare is the alert's share at t as Prometheus computes it from the
// samples in (t-5m, t]: both sums are extrapolated by one factor, which the
// ratio cancels, so only the total's extrapolated size (n) needs it.
func windowShare(ss []loopSample, t time.Time) (share, n float64, ok bool) {
	from := t.Add(-5 * time.Minute)
	var in []loopSample
	for _, s := range ss {
		if s.at.After(from) && !s.at.After(t) {
			in = append(in, s)
		}
	}
	if len(in) < 2 {
		return 0, 0, false
	}
	f, l := in[0], in[len(in)-1]
	sampled := l.at.Sub(f.at).Seconds()
	avg := sampled / float64(len(in)-1)
	toStart, toEnd := f.at.Sub(from).Seconds(), t.Sub(l.at).Seconds()
	if toStart >= avg*1.1 {
		toStart = avg / 2
	}
	if toEnd >= avg*1.1 {
		toEnd = avg / 2
	}
	du, dn := l.u-f.u, l.n-f.n
	if dn <= 0 {
		return 0, 0, false
	}
	return du / dn, dn * (sampled + toStart + toEnd) / sampled, true
}

func demoLoop(t *testing.T, start time.Time) {
	clk := manualclock.New(start)
	ts := servetest.Start(t, []string{"--demo"}, serve.Options{Clock: clk})
	const eval, scrapeEvery = 5 * time.Second, 3 // evaluations per scrape
	var ss []loopSample
	var shares []string
	fired, resolved, jobAt := 0, 0, -1
	var pendingSince time.Time
	firing, fell, highest := false, false, 0.0
	for i := 0; i <= 30*60/5; i++ {
		if i > 0 {
			clk.Advance(eval)
		}
		now := clk.Now()
		if i%scrapeEvery == 0 {
			u, n := conversationCounts(servetest.ScrapeSettled(t, ts, nil))
			ss = append(ss, loopSample{now, u, n})
		}
		share, n, ok := windowShare(ss, now)
		above := ok && n >= 10 && share > 0.15
		if i%12 == 0 {
			shares = append(shares, strconv.FormatFloat(share, 'f', 2, 64))
		}
		if jobAt >= 0 && ok && !above {
			fell = true
		}
		if fell && share > highest {
			highest = share
		}
		switch {
		case !above:
			if firing {
				resolved++
			}
			firing, pendingSince = false, time.Time{}
		case pendingSince.IsZero():
			pendingSince = now
		case !firing && now.Sub(pendingSince) >= time.Minute:
			firing = true
			fired++
		}
		if firing && jobAt < 0 {
			jobAt = i
			createDemoJob(t, ts.URL)
		}
	}
	if fired != 1 || resolved != 1 || firing || highest >= 0.15 {
		t.Errorf("from %s, the alert fired %d times and resolved %d times (firing at the end: %v), want once each; the share's highest after it fell: %.3f, want below 0.15; job at %s; the share each minute: %s",
			start.Format("15:04:05"), fired, resolved, firing, highest, time.Duration(jobAt)*eval, strings.Join(shares, " "))
	}
}

// createDemoJob creates an agent job of the docs on the demo's simulated
// API, as the receiver does when the alert reaches it, and returns its id.
func createDemoJob(t *testing.T, base string) string {
	t.Helper()
	return createDemoJobIn(t, base, "docs")
}

func createDemoJobIn(t *testing.T, base, project string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/-/demo/api/v2/agent/"+project+"/job", strings.NewReader(`{"prompt":"Fill the gap"}`))
	req.Header.Set("Authorization", "Bearer mint_demo_public_key")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var job struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&job); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("creating the job: %s (%v)", resp.Status, err)
	}
	return job.ID
}

// TestDemoSeededJobsToldApart: on /metrics, the demo's seeded jobs are in
// a repository named for them, so the job the receiver creates (in the
// docs' own repository) stands out, its pull request too.
func TestDemoSeededJobsToldApart(t *testing.T) {
	clk := manualclock.New(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	track := filepath.Join(t.TempDir(), "jobs.txt")
	ts := servetest.Start(t, []string{"--demo", "--mintlify.tracked-jobs-file=" + track}, serve.Options{Clock: clk})
	id := createDemoJob(t, ts.URL)
	if err := os.WriteFile(track, []byte("docs/"+id+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	servetest.ScrapeSettled(t, ts, nil)
	clk.Advance(3 * time.Minute)
	seeded, created := 0, 0
	for _, line := range strings.Split(servetest.ScrapeSettled(t, ts, nil), "\n") {
		if !strings.HasPrefix(line, "mintlify_agent_job_info{") && !strings.HasPrefix(line, "mintlify_agent_job_pull_request_info{") {
			continue
		}
		switch inSeeded := strings.Contains(line, "/seeded-jobs"); {
		case strings.Contains(line, `job_id="`+id+`"`) && !inSeeded:
			created++
		case strings.Contains(line, `job_id="job_demo_`) && inSeeded:
			seeded++
		default:
			t.Errorf("a seeded job outside the seeded-jobs repository, or the created one in it: %s", line)
		}
	}
	if seeded < 6+1 || created != 2 { // info and pull request
		t.Errorf("%d series of seeded jobs, %d of the created one; want each seeded job's info and a pull request, and the created one's two", seeded, created)
	}
}

// TestDemoOneProjectName: the demo's projects are called docs and blog
// everywhere: the simulated API's ids, so the tracked-jobs file's lines
// (the receiver's, dashboards/demo/routes.yml's project), and the metrics'
// project label. The former ids demo-docs and demo-blog still reach the
// same projects.
func TestDemoOneProjectName(t *testing.T) {
	clk := manualclock.New(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	track := filepath.Join(t.TempDir(), "jobs.txt")
	ts := servetest.Start(t, []string{"--demo", "--mintlify.tracked-jobs-file=" + track}, serve.Options{Clock: clk})
	id, former := createDemoJobIn(t, ts.URL, "docs"), createDemoJobIn(t, ts.URL, "demo-docs")
	if err := os.WriteFile(track, []byte("docs/"+id+"\ndocs/"+former+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := servetest.ScrapeSettled(t, ts, nil)
	for _, j := range []string{id, former} {
		if want := `mintlify_agent_job_status{job_id="` + j + `",project="docs",status="active"} 1`; !strings.Contains(out, want) {
			t.Errorf("the line docs/%s of the tracked-jobs file is not followed: no %s", j, want)
		}
	}
	routes, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "dashboards", "demo", "routes.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(routes), "demo-docs") || !strings.Contains(string(routes), "project: docs") {
		t.Errorf("dashboards/demo/routes.yml does not act on the project docs:\n%s", routes)
	}
}
