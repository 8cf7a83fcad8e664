package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// MaxTrackedJobs: at one poll a second, 10 000 ids are nearly three hours of first polls; more is a mistake
// or an attack. Config ids come first, then the file's newest; the rest are counted and logged once.
const MaxTrackedJobs = 10_000

// jobIDSource is re-read every refresh, so `jobs create --track` needs no reload; on a file error ids
// keeps the config's.
type jobIDSource func() (ids []string, ignored int, err error)

type trackedJob struct {
	job      *mintlify.Job // nil until first fetched
	endedAt  time.Time     // when it was first seen in a terminal state
	notFound time.Time     // last 404, zero if none
}

// agentJobs polls each id (there is no list endpoint); a terminal job is not polled again.
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
	ignored  int
	capped   bool // the cap was hit; logged once until the list shrinks
	notFound float64
}

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
	a.capped = old.capped
}

// due's work under the lock is linear in len(ids), which the cap bounds.
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

func (a *agentJobs) noteIgnored(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ignored = n
	switch {
	case n > 0 && !a.capped:
		a.capped = true
		a.log.Warn("too many tracked agent job ids; following the config's and the newest in the tracked-jobs file, ignoring the rest (see mintlify_agent_jobs_ignored)",
			"cap", MaxTrackedJobs, "ignored", n)
	case n == 0:
		a.capped = false
	}
}

func (a *agentJobs) refresh(ctx context.Context, now time.Time) error {
	ids, ignored, readErr := a.ids()
	if readErr != nil {
		// The config's ids are still polled; the file's jobs keep their state until it reads again.
		readErr = fmt.Errorf("reading tracked job ids: %w", readErr)
	}
	a.noteIgnored(ignored)
	poll := a.due(ids, now)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, max(a.concurrency, 1))
	)
	addErr := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	for _, id := range poll {
		if err := waitToken(ctx, a.limiter, now); err != nil {
			addErr(err)
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := a.poll(ctx, id, now); err != nil {
				addErr(err)
			}
		})
	}
	wg.Wait()
	if readErr == nil {
		a.forget(ids)
	}
	return errors.Join(readErr, errors.Join(errs...))
}

// waitToken takes a poll's token as of now, the engine's clock, so that a test's fake time refills the
// limiter as real time would; only a token not yet due waits, in real time.
func waitToken(ctx context.Context, l *rate.Limiter, now time.Time) error {
	r := l.ReserveN(now, 1)
	d := r.DelayFrom(now)
	if d == 0 {
		return nil
	}
	err := mintlify.Sleep(ctx, d)
	if err != nil {
		r.CancelAt(now)
	}
	return err
}

func (a *agentJobs) poll(ctx context.Context, id string, now time.Time) error {
	obs, err := mintlify.PollJob(ctx, a.client, a.id, id)
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.jobs[id]
	if t == nil {
		return nil // dropped by a concurrent reload
	}
	if err != nil {
		return fmt.Errorf("job %s: %w", id, err)
	}
	if obs.NotFound {
		a.notFound++
		if t.notFound.IsZero() {
			a.log.Warn("tracked agent job not found (404); check the id and the project", "job_id", id)
		}
		t.notFound = now
		return nil // a wrong id is not a failure of the collector
	}
	t.notFound = time.Time{}
	if _, ended := obs.Since(mintlify.Observation{Job: t.job}); ended {
		t.endedAt = now
		if obs.Job.ArchivedAt != nil {
			t.endedAt = *obs.Job.ArchivedAt
		}
	}
	t.job = obs.Job
	return nil
}

// forget keeps terminal jobs past retention, unexported, so a still-listed id is not fetched again.
func (a *agentJobs) forget(ids []string) {
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		keep[id] = true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	maps.DeleteFunc(a.jobs, func(id string, _ *trackedJob) bool { return !keep[id] })
}

// jobIDs: file lines are "project/job", or a bare job id when there is one project; config ids first, then
// the newest file ids, at most MaxTrackedJobs. The file is parsed again only when it changed.
func jobIDs(projectID string, fromConfig []string, file string, only bool, read func(string) ([]string, error)) jobIDSource {
	var (
		lastFile    os.FileInfo
		lastIDs     []string
		lastIgnored int
	)
	return func() ([]string, int, error) {
		seen := make(map[string]struct{}, min(len(fromConfig), MaxTrackedJobs))
		ids := make([]string, 0, min(len(fromConfig), MaxTrackedJobs))
		ignored := 0
		add := func(id string) {
			if _, dup := seen[id]; dup {
				return
			}
			if len(ids) == MaxTrackedJobs {
				// Past the cap nothing is kept, not even in seen, so memory stays bounded.
				ignored++
				return
			}
			seen[id] = struct{}{}
			ids = append(ids, id)
		}
		for _, id := range fromConfig {
			add(id)
		}
		if file == "" {
			return ids, ignored, nil
		}
		if read == nil {
			return ids, ignored, errors.New("no reader for the tracked-jobs file")
		}
		fi, serr := os.Stat(file)
		if serr == nil && lastFile != nil && os.SameFile(fi, lastFile) && fi.Size() == lastFile.Size() && fi.ModTime().Equal(lastFile.ModTime()) {
			return slices.Clone(lastIDs), lastIgnored, nil
		}
		lines, err := read(file)
		if err != nil {
			lastFile = nil
			return ids, ignored, err
		}
		for i := len(lines) - 1; i >= 0; i-- {
			l := lines[i]
			p, id, scoped := strings.Cut(l, "/")
			switch {
			case scoped && p == projectID && id != "":
				add(id)
			case !scoped && only:
				add(l)
			}
		}
		lastFile, lastIDs, lastIgnored = nil, nil, 0
		if serr == nil {
			lastFile, lastIDs, lastIgnored = fi, slices.Clone(ids), ignored
		}
		return ids, ignored, nil
	}
}

func (a *agentJobs) status(now time.Time) JobsStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := JobsStatus{Project: a.project, NotFound: a.notFound, Tracked: a.tracked, Ignored: a.ignored}
	for id, t := range a.jobs {
		if t.job == nil || !t.notFound.IsZero() {
			continue
		}
		if t.job.Status.Terminal() && now.Sub(t.endedAt) > a.retention {
			continue
		}
		st.Jobs = append(st.Jobs, TrackedJob{ID: id, Job: *t.job})
	}
	return st
}
