package engine

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// jobsUnit polls one project's tracked jobs: no analytics requests, so no budget, only a rate limiter.
type jobsUnit struct {
	projectID string
	project   string // label value
	src       *agentJobs
	timing    timing
	log       *slog.Logger

	mu      sync.Mutex
	h       health
	started time.Time // when the poll running now began, by the real clock
}

func (j *jobsUnit) hasData() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return !j.h.LastSuccess.IsZero()
}

func (e *Engine) newJobsUnit(cfg *config.Config, pr config.Project, label string, ks *keyState, t timing) *jobsUnit {
	g := cfg.Global
	aj := &agentJobs{
		project: label, id: pr.ID, client: ks.jobs,
		ids:         jobIDs(pr.ID, pr.Jobs, g.TrackedJobsFile, len(cfg.Projects) == 1, e.opts.ReadTrackedJobs),
		limiter:     e.jobLimiter(pr.ID),
		concurrency: g.JobConcurrency,
		retention:   time.Duration(g.JobRetention),
		recheck404:  10 * time.Duration(g.JobPollInterval),
		log:         e.log.With("project", label, "collector", "agent_jobs"),
		jobs:        make(map[string]*trackedJob),
	}
	t.fixedInterval = time.Duration(g.JobPollInterval)
	j := &jobsUnit{projectID: pr.ID, project: label, src: aj, timing: t, log: aj.log}
	if p := e.current(); p != nil {
		for _, old := range p.jobs {
			if old.projectID == pr.ID {
				// Copies only: the running unit is untouched until the new plan is swapped in.
				aj.adopt(old.src)
				old.mu.Lock()
				j.h = old.h
				j.h.FailCounts = maps.Clone(old.h.FailCounts)
				old.mu.Unlock()
			}
		}
	}
	return j
}

func (j *jobsUnit) due(now time.Time) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h.due(now)
}

// startJobs also tells when the poll it joins or begins started.
func (e *Engine) startJobs(j *jobsUnit) (<-chan struct{}, time.Time) {
	e.wg.Add(1)
	j.mu.Lock()
	if j.started.IsZero() {
		j.started = time.Now() // this call may begin the poll
	}
	started := j.started
	j.mu.Unlock()
	res := e.flights.DoChan(j.projectID, func() (any, error) {
		defer func() {
			j.mu.Lock()
			j.started = time.Time{}
			j.mu.Unlock()
		}()
		now := e.clock.Now()
		if !j.due(now) {
			return nil, nil // a poll finished while this caller waited for its turn
		}
		ctx, cancel := context.WithTimeout(e.ctx, j.timing.refreshTimeout)
		defer cancel()
		j.finish(now, j.src.refresh(ctx, now))
		return nil, nil
	})
	done := make(chan struct{})
	go func() {
		<-res
		close(done)
		e.wg.Done()
	}()
	return done, started
}

func (j *jobsUnit) finish(now time.Time, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err == nil {
		if j.h.Failed {
			j.log.Info("refresh succeeded again")
		}
		j.h.succeed(now, j.timing.fixedInterval)
		return
	}
	reason := mintlify.Classify(err).Reason()
	logf, _ := j.h.fail(reason, j.log)
	backoff := j.timing.fixedInterval << min(j.h.Failures-1, 6)
	j.h.NextRefresh = now.Add(min(backoff, j.timing.maxInterval))
	logf("polling agent jobs failed", "reason", reason, "err", err, "retry_at", j.h.NextRefresh)
}
