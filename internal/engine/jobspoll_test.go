package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// Tests of the agent-job poller, through JobsView.

// readTracked reads a tracked-jobs file as main's trackfile.Read does, in
// short: one id a line; no file is no ids.
func readTracked(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return strings.Fields(string(b)), err
}

// newJobsEngine is an engine of testkit.JobsConfig whose tracked-jobs file is
// track, with the jobs of testkit.SeedJobs.
func newJobsEngine(t *testing.T, track string, logs *testkit.LockedBuffer) *testEngine {
	t.Helper()
	e := newTestEngine(t, fmt.Sprintf(testkit.JobsConfig, track), mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 3}}},
		Options{ReadTrackedJobs: readTracked, Logger: bufLogger(logs)})
	testkit.SeedJobs(e.api.Server, epoch)
	return e
}

// jobs is the poller of docs.
func (e *testEngine) jobs(t *testing.T) JobsView {
	t.Helper()
	v := e.View()
	if len(v.Jobs) != 1 {
		t.Fatalf("%d job pollers, want 1", len(v.Jobs))
	}
	return v.Jobs[0]
}

// jobStatuses are the statuses of the jobs docs' poller shows, by id.
func (e *testEngine) jobStatuses(t *testing.T) map[string]mintlify.JobStatus {
	t.Helper()
	out := map[string]mintlify.JobStatus{}
	for _, j := range e.jobs(t).Jobs().Jobs {
		out[j.ID] = j.Job.Status
	}
	return out
}

// TestJobStatesAndPolling: each job shows its status, the active one is
// polled until it ends and no other is polled again, and the polls do not
// count against the analytics budget. (The job series are tested in
// collector: TestJobSeries.)
func TestJobStatesAndPolling(t *testing.T) {
	t.Parallel() // its own engine, API and files; it waits on real deadlines or walks long
	e := newJobsEngine(t, filepath.Join(t.TempDir(), "jobs.txt"), &testkit.LockedBuffer{})
	e.refresh()
	statuses := e.jobStatuses(t)
	for id, want := range map[string]mintlify.JobStatus{"job_active": mintlify.JobActive, "job_done": mintlify.JobCompleted,
		"job_failed": mintlify.JobFailed, "job_archived": mintlify.JobArchived} {
		if got := statuses[id]; got != want {
			t.Errorf("%s status %q, want %q", id, got, want)
		}
	}
	if n := e.requests(mockapi.EndpointGetJob); n != 4 {
		t.Fatalf("first refresh made %d get_job calls, want 4", n)
	}
	// Only the active job is polled again; it completes after its 2 minutes.
	for range 6 {
		e.clock.Advance(30 * time.Second)
		e.refresh()
	}
	if got := e.jobStatuses(t)["job_active"]; got != mintlify.JobCompleted {
		t.Fatalf("job_active is %q after 3 minutes", got)
	}
	polls := e.requests(mockapi.EndpointGetJob) - 4
	if polls < 3 || polls > 6 {
		t.Fatalf("%d re-polls; only the active job should be polled, once per 30 s until it ended", polls)
	}
	before := e.requests(mockapi.EndpointGetJob)
	for range 10 {
		e.clock.Advance(30 * time.Second)
		e.refresh()
	}
	if n := e.requests(mockapi.EndpointGetJob); n != before {
		t.Fatalf("%d get_job calls for jobs that have all ended", n-before)
	}
	if !e.jobs(t).Health().Up {
		t.Error("the job poller is not up")
	}
	// Analytics budget untouched by job polling.
	if got := e.key(t, "acme").Used; got != e.requests(mockapi.EndpointViews) {
		t.Errorf("budget used %v, views requests %d: job polls must not count", got, e.requests(mockapi.EndpointViews))
	}
}

func TestJobRetention(t *testing.T) {
	e := newJobsEngine(t, filepath.Join(t.TempDir(), "jobs.txt"), &testkit.LockedBuffer{})
	e.refresh()
	e.clock.Advance(2*time.Hour + time.Minute)
	e.refresh()
	statuses := e.jobStatuses(t)
	for _, id := range []string{"job_done", "job_failed", "job_archived"} {
		if _, ok := statuses[id]; ok {
			t.Errorf("%s still shown after the 2h retention", id)
		}
	}
	// job_active ended at 12:01:30 and was archived an hour later: that is
	// inside the retention, so it is still shown, as archived.
	if got := statuses["job_active"]; got != mintlify.JobArchived {
		t.Errorf("job_active is %q; the job that ended later should still be shown", got)
	}
}

func TestJobNotFoundAndTrackedFile(t *testing.T) {
	track := filepath.Join(t.TempDir(), "jobs.txt")
	logs := &testkit.LockedBuffer{}
	e := newJobsEngine(t, track, logs)
	id := e.api.Server.SeedJob("proj-docs", mockapi.JobSeed{Prompt: "tracked via file", CreatedAt: epoch})
	content := "proj-docs/" + id + "\nproj-docs/job_nope\nother-project/job_x\n"
	if err := os.WriteFile(track, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	e.refresh()
	statuses := e.jobStatuses(t)
	if statuses[id] != mintlify.JobActive {
		t.Fatalf("job from the tracked-jobs file not shown: %v", statuses)
	}
	st := e.jobs(t).Jobs()
	if st.NotFound != 1 {
		t.Error("404 not counted")
	}
	if _, ok := statuses["job_nope"]; ok {
		t.Error("an unknown job is shown")
	}
	if _, ok := statuses["job_x"]; ok {
		t.Error("a foreign job is shown")
	}
	if st.Tracked != 6 {
		t.Errorf("%d jobs tracked, want 6", st.Tracked)
	}
	if !strings.Contains(logs.String(), "job_nope") {
		t.Error("404 not logged")
	}
}

// An unreadable tracked-jobs file fails the refresh (and says so) but the
// jobs listed in the config are polled and shown all the same.
func TestUnreadableTrackedFileStillPollsConfigJobs(t *testing.T) {
	logs := &testkit.LockedBuffer{}
	e := newJobsEngine(t, t.TempDir(), logs) // a directory: reading it as the file fails
	e.refresh()
	if got := e.jobStatuses(t)["job_done"]; got != mintlify.JobCompleted {
		t.Fatalf("config job job_done is %q with an unreadable tracked-jobs file", got)
	}
	if e.jobs(t).Health().Up {
		t.Error("the job poller is up although the tracked-jobs file cannot be read")
	}
	if !strings.Contains(logs.String(), "reading tracked job ids") {
		t.Error("the file error is not logged")
	}
}

// TestJobInvalidPRLinkNotShown: a pull-request link that fails
// mintlify.ValidPRLink (here plain http) is not shown, so no series carries
// it; the job's status still is.
func TestJobInvalidPRLinkNotShown(t *testing.T) {
	track := filepath.Join(t.TempDir(), "jobs.txt")
	e := newJobsEngine(t, track, &testkit.LockedBuffer{})
	id := e.api.Server.SeedJob("proj-docs", mockapi.JobSeed{Repository: "http://github.com/a/b", CreatedAt: epoch.Add(-time.Hour)})
	if err := os.WriteFile(track, []byte("proj-docs/"+id+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.refresh()
	for _, j := range e.jobs(t).Jobs().Jobs {
		if j.ID == id && (j.Job.Status != mintlify.JobCompleted || j.Job.PRLink != nil) {
			t.Fatalf("job %+v, want completed without its http link", j.Job)
		}
		if j.ID == id {
			return
		}
	}
	t.Fatalf("job %s not shown", id)
}
