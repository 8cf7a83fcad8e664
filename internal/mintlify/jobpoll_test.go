package mintlify

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type fakeJobs struct {
	job *Job
	err error
}

func (f fakeJobs) GetJob(context.Context, string, string) (*Job, error) { return f.job, f.err }

// TestPollJob: one poll classifies not found, terminal and the pull-request
// link (one rule for every follower), and says what changed since the last.
func TestPollJob(t *testing.T) {
	link := func(s string) *string { return &s }
	job := func(st JobStatus, pr *string) *Job { return &Job{ID: "j", Status: st, PRLink: pr} }
	pr := "https://github.com/a/b/pull/1"
	for _, tc := range []struct {
		name        string
		got         fakeJobs
		last        Observation
		wantErr     bool
		notFound    bool
		link        string
		done, shown bool
		ended       bool
	}{
		{name: "first sight, active", got: fakeJobs{job: job(JobActive, nil)}, shown: true},
		{name: "no change", got: fakeJobs{job: job(JobActive, nil)}, last: Observation{Job: job(JobActive, nil)}},
		{name: "pr link appears", got: fakeJobs{job: job(JobActive, link(pr))}, last: Observation{Job: job(JobActive, nil)}, link: pr, done: true, shown: true},
		{name: "completes", got: fakeJobs{job: job(JobCompleted, link(pr))}, last: Observation{Job: job(JobActive, link(pr))}, link: pr, done: true, shown: true, ended: true},
		{name: "first sight, already failed", got: fakeJobs{job: job(JobFailed, nil)}, done: true, shown: true, ended: true},
		{name: "archived after completed", got: fakeJobs{job: job(JobArchived, nil)}, last: Observation{Job: job(JobCompleted, nil)}, done: true, shown: true},
		{name: "http link dropped", got: fakeJobs{job: job(JobActive, link("http://github.com/a/b/pull/1"))}, last: Observation{Job: job(JobActive, nil)}},
		{name: "userinfo link dropped", got: fakeJobs{job: job(JobActive, link("https://u:p@github.com/a/b/pull/1"))}, last: Observation{Job: job(JobActive, nil)}},
		{name: "hostless link dropped", got: fakeJobs{job: job(JobActive, link("https:///pull/1"))}, last: Observation{Job: job(JobActive, nil)}},
		{name: "long link dropped", got: fakeJobs{job: job(JobActive, link("https://github.com/"+strings.Repeat("a", 2048)))}, last: Observation{Job: job(JobActive, nil)}},
		{name: "not found", got: fakeJobs{err: &APIError{StatusCode: 404}}, notFound: true, done: true},
		{name: "server error", got: fakeJobs{err: &APIError{StatusCode: 503}}, wantErr: true},
		{name: "timeout", got: fakeJobs{err: context.DeadlineExceeded}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, err := PollJob(context.Background(), tc.got, "p", "j")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			shown, ended := obs.Since(tc.last)
			if obs.NotFound != tc.notFound || obs.PRLink() != tc.link || obs.Done() != tc.done || shown != tc.shown || ended != tc.ended {
				t.Errorf("got not found %v, link %q, done %v, shown %v, ended %v", obs.NotFound, obs.PRLink(), obs.Done(), shown, ended)
			}
			if obs.Job != nil && obs.Job.PRLink != nil && *obs.Job.PRLink != tc.link {
				t.Errorf("the job keeps the link %q", *obs.Job.PRLink)
			}
		})
	}
}

// TestPollJobLeavesTheJobAlone: dropping an invalid link does not write
// through to the job the getter returned.
func TestPollJobLeavesTheJobAlone(t *testing.T) {
	bad := "javascript:alert(1)"
	j := &Job{ID: "j", Status: JobActive, PRLink: &bad, CreatedAt: time.Unix(0, 0)}
	obs, err := PollJob(context.Background(), fakeJobs{job: j}, "p", "j")
	if err != nil || obs.Job.PRLink != nil || j.PRLink != &bad {
		t.Fatalf("obs %+v err %v, getter's job %+v", obs, err, j)
	}
	if _, err := PollJob(context.Background(), fakeJobs{err: errors.New("x")}, "p", "j"); err == nil {
		t.Fatal("an error was lost")
	}
}
