package collector

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// source is one collector of one project: it refreshes a cache from the
// upstream and emits it. The unit around it owns scheduling, health and
// the budget, so a source only knows its endpoint.
type source interface {
	name() string // collector name: its label value and logger attribute
	usesBudget() bool
	expectedCost() int // analytics requests the next refresh takes
	refresh(ctx context.Context, now time.Time, gate func(context.Context) error) error
	collect(ch chan<- prometheus.Metric, now time.Time, fresh bool)
}

// Failure reasons, the values of mintlify_refresh_failures_total{reason}.
const (
	reasonRateLimited  = "rate_limited"
	reasonUnauthorized = "unauthorized"
	reasonForbidden    = "forbidden"
	reasonServerError  = "server_error"
	reasonBadResponse  = "bad_response"
	reasonTimeout      = "timeout"
	reasonBudget       = "budget"
	reasonOther        = "other"
)

var allReasons = []string{reasonRateLimited, reasonUnauthorized, reasonForbidden, reasonServerError, reasonBadResponse, reasonTimeout, reasonBudget, reasonOther}

// unit schedules the refreshes of one source and keeps its health.
type unit struct {
	id      string // project + "/" + collector, the singleflight key
	project string
	src     source
	key     *keyState // nil for sources that do not use the analytics budget
	log     *slog.Logger
	timing  timing

	mu          sync.Mutex
	nextRefresh time.Time
	lastSuccess time.Time
	failed      bool   // the last refresh failed for a reason other than the budget
	lastReason  string // reason of the last failure, "" after a success
	failures    int    // consecutive failures, for the backoff
	failCounts  map[string]float64
}

// timing is what the config says about refresh timing.
type timing struct {
	minInterval, maxInterval, maxAge, refreshTimeout time.Duration
	fixedInterval                                    time.Duration // for sources outside the budget
}

func newUnit(project string, src source, key *keyState, t timing, log *slog.Logger) *unit {
	u := &unit{
		id: project + "/" + src.name(), project: project, src: src, key: key, timing: t,
		log:        log.With("project", project, "collector", src.name()),
		failCounts: make(map[string]float64),
	}
	return u
}

// interval is how often the unit may refresh now: for budgeted sources,
// the hour divided in proportion to this key's total cost, so that every
// project and collector under the key together stay within its budget.
func (u *unit) interval() time.Duration {
	if u.key == nil {
		return u.timing.fixedInterval
	}
	d := u.key.plannedInterval(u.src.name())
	return min(max(d, u.timing.minInterval), u.timing.maxInterval)
}

func (u *unit) due(now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return !now.Before(u.nextRefresh)
}

// run is one refresh; the exporter calls it through singleflight, so it
// never runs twice at once for the same unit.
func (u *unit) run(ctx context.Context, clock Clock) {
	now := clock.Now()
	if !u.due(now) {
		return // a refresh finished while this caller waited for its turn
	}
	var gate func(context.Context) error
	if u.key != nil {
		if until := u.key.backoffUntil(now); until.After(now) {
			u.schedule(until)
			return
		}
		cost := min(u.src.expectedCost(), u.key.budget.Limit())
		if u.key.budget.Available() < cost {
			// Not enough budget left in this hour for a whole refresh:
			// wait rather than start a sweep that would be cut short.
			free := u.key.budget.FreeAt(cost)
			u.log.Debug("refresh deferred: analytics budget in use", "cost", cost, "until", free)
			u.schedule(free)
			return
		}
		gate = u.key.take
	}
	ctx, cancel := context.WithTimeout(ctx, u.timing.refreshTimeout)
	defer cancel()
	err := u.src.refresh(ctx, now, gate)
	u.finish(clock.Now(), err)
}

func (u *unit) schedule(at time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.nextRefresh = at
}

func (u *unit) finish(now time.Time, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err == nil {
		if u.failed {
			u.log.Info("refresh succeeded again")
		}
		u.lastSuccess, u.failed, u.lastReason, u.failures = now, false, "", 0
		u.nextRefresh = now.Add(u.interval())
		if u.key != nil {
			u.key.clearBackoff()
		}
		return
	}
	reason := classify(err)
	u.failCounts[reason]++
	u.failures++
	first := u.lastReason != reason
	u.lastReason = reason
	logf := u.log.Warn
	if !first {
		logf = u.log.Debug // the same failure again: said once already
	}
	switch reason {
	case reasonRateLimited:
		// Not a failure of the data: keep serving it, back off the key
		// (the analytics budget is the organization's) or this unit.
		_, ra, ok := mintlify.IsRateLimited(err)
		var until time.Time
		if u.key != nil {
			until = u.key.backoff(now, ra, ok)
		} else {
			until = now.Add(max(ra, u.interval()*time.Duration(min(u.failures, 8))))
		}
		u.nextRefresh = until
		logf("upstream rate limit hit (429); backing off and serving cached data", "until", until, "err", err)
		return
	case reasonBudget:
		u.nextRefresh = now.Add(u.timing.minInterval)
		if u.key != nil {
			if free := u.key.budget.FreeAt(1); free.After(u.nextRefresh) {
				u.nextRefresh = free
			}
		}
		logf("refresh stopped: analytics budget spent; serving cached data", "err", err)
		return
	case reasonUnauthorized, reasonForbidden:
		// Retrying soon cannot help; someone has to fix the key.
		u.failed = true
		u.nextRefresh = now.Add(u.timing.maxInterval)
		if first {
			u.log.Error(authHint(reason), "err", err, "retry_at", u.nextRefresh)
		}
		return
	}
	u.failed = true
	backoff := u.timing.minInterval << min(u.failures-1, 10)
	u.nextRefresh = now.Add(min(backoff, max(u.interval(), u.timing.minInterval)))
	logf("refresh failed; serving cached data", "reason", reason, "err", err, "retry_at", u.nextRefresh)
}

func authHint(reason string) string {
	if reason == reasonUnauthorized {
		return "API key refused (401): it is unknown, revoked or expired. Create an admin key (prefix mint_) in the Mintlify dashboard and update the key's env variable or file, then reload"
	}
	return "API key not allowed (403): the key may lack the needed scope, this host may be outside the key's IP allowlist, or the project may belong to another organization"
}

func classify(err error) string {
	if limited, _, _ := mintlify.IsRateLimited(err); limited {
		return reasonRateLimited
	}
	var re *mintlify.ResponseError
	var ne net.Error
	switch {
	case errors.Is(err, mintlify.ErrSweepStopped):
		return reasonBudget
	case mintlify.IsUnauthorized(err):
		return reasonUnauthorized
	case mintlify.IsForbidden(err):
		return reasonForbidden
	case mintlify.IsServerError(err):
		return reasonServerError
	case errors.As(err, &re):
		return reasonBadResponse
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return reasonTimeout
	}
	return reasonOther
}

// collect emits the unit's health and, through the source, its data.
func (u *unit) collect(ch chan<- prometheus.Metric, now time.Time) {
	u.mu.Lock()
	last, failed := u.lastSuccess, u.failed
	counts := make(map[string]float64, len(u.failCounts))
	for k, v := range u.failCounts {
		counts[k] = v
	}
	u.mu.Unlock()

	fresh := !last.IsZero() && now.Sub(last) <= u.timing.maxAge
	up := fresh && !failed
	lv := []string{u.src.name(), u.project}
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, boolFloat(up), lv...)
	if !last.IsZero() {
		ch <- prometheus.MustNewConstMetric(descLastSuccess, prometheus.GaugeValue, float64(last.UnixNano())/1e9, lv...)
	}
	ch <- prometheus.MustNewConstMetric(descInterval, prometheus.GaugeValue, u.interval().Seconds(), lv...)
	for _, r := range allReasons {
		ch <- prometheus.MustNewConstMetric(descRefreshFailures, prometheus.CounterValue, counts[r], u.src.name(), u.project, r)
	}
	u.src.collect(ch, now, fresh)
}

// inherit carries health and schedule over a reload, so a reload neither
// resets `up` nor triggers an extra sweep.
func (u *unit) inherit(old *unit) {
	old.mu.Lock()
	defer old.mu.Unlock()
	u.nextRefresh, u.lastSuccess, u.failed, u.lastReason, u.failures = old.nextRefresh, old.lastSuccess, old.failed, old.lastReason, old.failures
	if old.lastReason == reasonUnauthorized || old.lastReason == reasonForbidden {
		// The usual fix for a refused key is a new key and a reload: try
		// at once rather than wait out the long auth back-off.
		u.nextRefresh = time.Time{}
	}
	for k, v := range old.failCounts {
		u.failCounts[k] = v
	}
}
