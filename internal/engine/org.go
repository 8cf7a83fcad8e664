package engine

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// A 429 without Retry-After backs off doubling from a minute, up to the budget period (counted per hour).
const (
	backoffStart = time.Minute
	backoffMax   = budget.Period
)

// Circuit breaker: after an upstream failure (5xx, timeout), no analytics request for breakerStart, doubling
// up to breakerMax, then one probe; an hour of outage costs at most five probes of two requests.
const (
	breakerStart = 2 * time.Minute
	breakerMax   = budget.Period
)

// org is one key's organization: its sliding hour and back-off, kept across reloads, renames and restarts.
type org struct {
	fp     string
	budget *budget.Window
	clock  Clock

	mu        sync.Mutex
	until     time.Time // no request before this (429 back-off or open breaker)
	throttled int       // consecutive 429s
	outages   int       // consecutive upstream failures (the breaker)
	run       chan struct{}
	runStart  time.Time // when run began, by the real clock (scrape timeouts are real)
	// spent feeds the collectors' shares (share.go); not in the ledger, so after a restart the collectors start afresh.
	spent map[string][]time.Time
	picks atomic.Uint64 // units picked to run, for unitState.turn
}

func (o *org) pausedUntil() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.until
}

func (o *org) pause(until time.Time) time.Time {
	if until.After(o.until) {
		o.until = until
	}
	return o.until
}

func (o *org) rateLimited(now time.Time, retryAfter time.Duration, hasRetryAfter bool) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.throttled++
	d := backoffStart << min(o.throttled-1, 10)
	if hasRetryAfter {
		d = retryAfter
	}
	return o.pause(now.Add(min(max(d, time.Second), backoffMax)))
}

func (o *org) outcome(now time.Time, c mintlify.Class) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case c.Kind == mintlify.KindNone:
		o.outages, o.throttled = 0, 0
	case c.Outage():
		o.outages++
		o.pause(now.Add(min(breakerStart<<min(o.outages-1, 10), breakerMax)))
	}
}

type keyState struct {
	name        string
	org         *org
	client      *mintlify.Client // analytics: at most one retry, charged to the budget
	jobs        *mintlify.Client // agent jobs: outside the budget
	limit       int
	weights     config.CollectorWeights
	units       []*unit
	cycleWarned atomic.Bool
	expiresAt   time.Time // the configuration's expires_at; zero when unset
}

// cycle is one full refresh of the key's analytics work at its budget: the longest unit interval and its collector.
func (k *keyState) cycle(shares map[string]*collectorShare) (d time.Duration, requests int, longest string) {
	for _, u := range k.units {
		requests += u.fullCost()
		if iv := max(shares[u.collector.Name].interval(), u.timing.minInterval); iv > d {
			d, longest = iv, u.collector.Name
		}
	}
	return d, requests, longest
}

// warnCycle logs once per config when the budget cannot refresh the key's work within max_age; it runs
// after each run too, since a walk's cost is learnt as it goes.
func (k *keyState) warnCycle(log *slog.Logger) {
	if len(k.units) == 0 || k.cycleWarned.Load() {
		return
	}
	maxAge := k.units[0].timing.maxAge
	cycle, requests, longest := k.cycle(k.shares())
	if maxAge <= 0 || cycle <= maxAge || k.cycleWarned.Swap(true) {
		return
	}
	log.Warn("the key's analytics budget cannot refresh its work within max_age: data will be older than max_age between refreshes (mintlify_up 0); "+
		"lower the work (projects, windows, collectors) or raise the budget (budget_per_hour, share) or max_age",
		"key", k.name, "units", len(k.units), "requests_per_round", requests, "limit_per_hour", k.limit,
		"cycle", cycle.Round(time.Second).String(), "max_age", maxAge.String(), "longest", longest)
}

// schedule runs the key's due units one at a time, so units never race for the same slots and the breaker
// sees a failure before the next unit spends anything.
func (e *Engine) schedule(o *org) (run <-chan struct{}, started time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.run != nil {
		return o.run, o.runStart
	}
	done := make(chan struct{})
	o.run, o.runStart = done, time.Now()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer close(done)
		defer func() {
			o.mu.Lock()
			o.run = nil
			o.mu.Unlock()
		}()
		e.drain(o)
	}()
	return done, o.runStart
}

func (e *Engine) drain(o *org) {
	// What the last runs read is on disk as soon as the refresh pauses.
	defer e.saveData()
	for range 1000 { // a bound, should a unit never leave the due list
		if e.ctx.Err() != nil {
			return
		}
		k := e.current().keyOf(o)
		if k == nil {
			return // the key left the config
		}
		now := e.clock.Now()
		// Under the ledger's lock: count the backfill's requests, then save the reservation as spent, lest we die now.
		tx := e.beginLedger()
		u, res := k.next(now)
		e.endLedger(tx, u != nil)
		if u == nil {
			k.warnCycle(e.log) // with the costs the runs learnt
			return
		}
		settled, err := u.run(e.ctx, now, res)
		res.Release()
		if class := mintlify.Classify(err); class.Kind == mintlify.KindRateLimited {
			_, ra, ok := mintlify.IsRateLimited(err)
			o.rateLimited(e.clock.Now(), ra, ok)
		} else {
			o.outcome(e.clock.Now(), class)
		}
		e.saveProgress(settled)
	}
}
