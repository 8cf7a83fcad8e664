package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

var (
	descJobStatus = prometheus.NewDesc("mintlify_agent_job_status",
		"State of a tracked agent job: one series per status (active, completed, archived, failed), 1 for the current one."+jobsNote,
		[]string{"job_id", "project", "status"}, nil)
	descJobInfo = prometheus.NewDesc("mintlify_agent_job_info",
		"Static facts of a tracked agent job; always 1."+jobsNote,
		[]string{"job_id", "model", "project", "ref", "repository"}, nil)
	descJobPR = prometheus.NewDesc("mintlify_agent_job_pull_request_info",
		"Pull request an agent job opened; always 1, present once the job has one."+jobsNote,
		[]string{"job_id", "project", "url"}, nil)
	descJobCreated = prometheus.NewDesc("mintlify_agent_job_created_timestamp_seconds",
		"Unix time an agent job was created.",
		[]string{"job_id", "project"}, nil)
	descJobArchived = prometheus.NewDesc("mintlify_agent_job_archived_timestamp_seconds",
		"Unix time an agent job was archived; present only for archived jobs.",
		[]string{"job_id", "project"}, nil)
	descJobsNotFound = prometheus.NewDesc("mintlify_agent_jobs_not_found_total",
		"Answers of 404 (job not found) to the polling of a tracked job id.",
		[]string{"project"}, nil)
	descJobsTracked = prometheus.NewDesc("mintlify_agent_jobs_tracked",
		"Job ids the exporter was told to follow (config file and tracked-jobs file) for the project.",
		[]string{"project"}, nil)
)

const jobsNote = " Polled from the API only while the job is active; see mintlify_refresh_interval_seconds{collector=\"agent_jobs\"}."

// jobIDSource lists the ids to follow; it is re-read on every refresh so a
// job created with `jobs create --track` is picked up without a reload.
type jobIDSource func() ([]string, error)

// trackedJob is what the exporter knows of one job id.
type trackedJob struct {
	job      *mintlify.Job // nil until first fetched
	endedAt  time.Time     // when it was first seen in a terminal state
	notFound time.Time     // last 404, zero if none
}

// agentJobs follows the agent jobs of one project. There is no list
// endpoint, so it polls each id it was given; a job in a terminal state is
// not polled again, and is exported until the retention has passed.
type agentJobs struct {
	project     string
	id          string
	client      *mintlify.Client
	ids         jobIDSource
	limiter     *rate.Limiter // bounds the poll rate, separate from the analytics budget
	concurrency int
	retention   time.Duration
	recheck404  time.Duration
	log         *slog.Logger

	mu       sync.Mutex
	jobs     map[string]*trackedJob
	tracked  int
	notFound float64
}

func (a *agentJobs) name() string { return "agent_jobs" }
func (a *agentJobs) adopt(old *agentJobs) {
	if old == nil || old.id != a.id {
		return
	}
	old.mu.Lock()
	defer old.mu.Unlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, j := range old.jobs {
		cp := *j
		a.jobs[id] = &cp
	}
	a.notFound = old.notFound
}

// due lists the ids to poll now.
func (a *agentJobs) due(ids []string, now time.Time) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, id := range ids {
		j, ok := a.jobs[id]
		if !ok {
			j = &trackedJob{}
			a.jobs[id] = j
		}
		switch {
		case !j.notFound.IsZero():
			if now.Sub(j.notFound) >= a.recheck404 {
				out = append(out, id)
			}
		case j.job == nil || !j.job.Status.Terminal():
			out = append(out, id)
		}
	}
	a.tracked = len(ids)
	return out
}

func (a *agentJobs) refresh(ctx context.Context, now time.Time, _ func(context.Context) error) error {
	ids, err := a.ids()
	if err != nil {
		return fmt.Errorf("reading tracked job ids: %w", err)
	}
	poll := a.due(ids, now)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, max(a.concurrency, 1))
	)
	for _, id := range poll {
		if err := a.limiter.Wait(ctx); err != nil {
			errs = append(errs, err)
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := a.poll(ctx, id, now); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	a.forget(ids)
	return errors.Join(errs...)
}

func (a *agentJobs) poll(ctx context.Context, id string, now time.Time) error {
	job, err := a.client.GetJob(ctx, a.id, id)
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.jobs[id]
	if t == nil {
		return nil // dropped by a concurrent reload
	}
	if mintlify.IsNotFound(err) {
		a.notFound++
		if t.notFound.IsZero() {
			a.log.Warn("tracked agent job not found (404); check the id and the project", "job_id", id)
		}
		t.notFound = now
		return nil // a wrong id is not a failure of the collector
	}
	if err != nil {
		return fmt.Errorf("job %s: %w", id, err)
	}
	t.notFound = time.Time{}
	if job.Status.Terminal() && (t.job == nil || !t.job.Status.Terminal()) {
		t.endedAt = now
		if job.ArchivedAt != nil {
			t.endedAt = *job.ArchivedAt
		}
	}
	t.job = job
	return nil
}

// forget drops the ids that are no longer tracked. Terminal jobs past
// their retention stay in the map, unexported, so that they are not
// fetched again while their id is still listed.
func (a *agentJobs) forget(ids []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id := range a.jobs {
		if !slices.Contains(ids, id) {
			delete(a.jobs, id)
		}
	}
}

func (a *agentJobs) collect(ch chan<- prometheus.Metric, now time.Time, _ bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descJobsNotFound, prometheus.CounterValue, a.notFound, a.project)
	ch <- prometheus.MustNewConstMetric(descJobsTracked, prometheus.GaugeValue, float64(a.tracked), a.project)
	for id, t := range a.jobs {
		j := t.job
		if j == nil || !t.notFound.IsZero() {
			continue
		}
		if j.Status.Terminal() && now.Sub(t.endedAt) > a.retention {
			continue
		}
		for _, s := range mintlify.JobStatuses {
			ch <- prometheus.MustNewConstMetric(descJobStatus, prometheus.GaugeValue, boolFloat(j.Status == s), id, a.project, string(s))
		}
		ref := ""
		if j.Ref != nil {
			ref = *j.Ref
		}
		ch <- prometheus.MustNewConstMetric(descJobInfo, prometheus.GaugeValue, 1, id, j.Model, a.project, ref, j.Repository)
		if j.PRLink != nil {
			ch <- prometheus.MustNewConstMetric(descJobPR, prometheus.GaugeValue, 1, id, a.project, *j.PRLink)
		}
		if !j.CreatedAt.IsZero() {
			ch <- prometheus.MustNewConstMetric(descJobCreated, prometheus.GaugeValue, float64(j.CreatedAt.UnixNano())/1e9, id, a.project)
		}
		if j.Status == mintlify.JobArchived && j.ArchivedAt != nil {
			ch <- prometheus.MustNewConstMetric(descJobArchived, prometheus.GaugeValue, float64(j.ArchivedAt.UnixNano())/1e9, id, a.project)
		}
	}
}
