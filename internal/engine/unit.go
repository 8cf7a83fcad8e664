package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

type timing struct {
	minInterval, maxInterval, maxAge, refreshTimeout time.Duration
	fixedInterval                                    time.Duration // agent_jobs: the poll interval
}

// health is part of the unit's state, so it survives reloads and restarts.
type health struct {
	NextRefresh time.Time          `json:"next_refresh"`
	LastSuccess time.Time          `json:"last_success"`
	Failed      bool               `json:"failed"`      // the last refresh failed
	LastReason  string             `json:"last_reason"` // reason of the last failure, "" after a success
	Failures    int                `json:"failures"`    // consecutive failures, for the back-off
	FailCounts  map[string]float64 `json:"fail_counts"`
}

func (h *health) due(now time.Time) bool { return !now.Before(h.NextRefresh) }

func (h *health) succeed(now time.Time, next time.Duration) {
	h.LastSuccess, h.Failed, h.LastReason, h.Failures = now, false, "", 0
	h.NextRefresh = now.Add(next)
}

// fail counts the failure and returns how to log it: a warning for a new reason, else a debug line (said once already).
func (h *health) fail(reason string, log *slog.Logger) (logf func(string, ...any), first bool) {
	if h.FailCounts == nil {
		h.FailCounts = map[string]float64{}
	}
	h.FailCounts[reason]++
	h.Failures++
	first = h.LastReason != reason
	h.LastReason, h.Failed = reason, true
	if !first {
		return log.Debug, false
	}
	return log.Warn, true
}

func (h *health) fresh(now time.Time, maxAge time.Duration) bool {
	return !h.LastSuccess.IsZero() && now.Sub(h.LastSuccess) <= maxAge
}

// unitID is by project id (not label) and collector: a reload keeping both keeps the data.
type unitID struct{ project, collector string }

func (id unitID) String() string { return id.project + "/" + id.collector }

// unitState outlives configs: successive configs' units share it, so a refresh across a reload lands in the new one.
type unitState struct {
	mu      sync.Mutex
	health  health
	windows map[string]*windowState // by windowSpec.key()
	version int                     // bumped whenever data changes
	// begun is when the refresh under way began: a window whose data is as new is done for it.
	begun time.Time
	// turn: of two units due together, the one picked longer ago goes first. Not saved.
	turn uint64

	// retired is zero while a config uses the unit (retire.go).
	retired time.Time

	// the last JSON encoding, for the state file
	changes   int // bumped on every change, data or health
	encoded   []byte
	encodedAt int
}

type windowState struct {
	DataTime time.Time // when Payload was fetched whole; zero if never
	Hint     int       // what a whole refresh costs (spec.Walking)
	// RefusedFuture is the month whose day range the upstream refused (400); it asks for [1st, now) instead.
	RefusedFuture time.Time
	Progress      time.Time // when a paused refresh last brought new data
	Range         *mintlify.DateRange
	Payload       spec.Payload
	Floor         *counterFloor
}

func (s *unitState) window(w windowSpec) *windowState {
	if s.windows == nil {
		s.windows = map[string]*windowState{}
	}
	ws, ok := s.windows[w.key()]
	if !ok {
		ws = &windowState{}
		s.windows[w.key()] = ws
	}
	return ws
}

type unit struct {
	id        unitID
	collector spec.Collector
	project   string // label value
	settings  spec.Settings
	windows   []windowSpec
	key       *keyState
	timing    timing
	log       *slog.Logger
	state     *unitState

	mu     sync.Mutex
	memo   any // what Memo's caller built of state version memoAt
	memoAt int
}

// interval: a unit whose planned interval is longer than max_refresh_interval is due sooner than the budget
// pays for, and waits its turn (keyState.next).
func (u *unit) interval() time.Duration {
	return min(u.plannedInterval(u.key.shares()), u.timing.maxInterval)
}

// plannedInterval is 1h × Σ cost(units of collector) / rate(collector), at least min_refresh_interval; the rates add
// up to the key's limit, so turning on a collector slows the others instead of overspending.
func (u *unit) plannedInterval(shares map[string]*collectorShare) time.Duration {
	iv := budget.Period
	if s, ok := shares[u.collector.Name]; ok {
		iv = s.interval()
	}
	return max(iv, u.timing.minInterval)
}

// expectedInterval (mintlify_refresh_interval_seconds) also counts a paused refresh's run so far and its rest.
func (u *unit) expectedInterval(now time.Time, shares map[string]*collectorShare) time.Duration {
	iv := u.plannedInterval(shares)
	u.state.mu.Lock()
	start, failed := u.state.begun, u.state.health.Failed
	u.state.mu.Unlock()
	s, ok := shares[u.collector.Name]
	if start.IsZero() || start.After(now) || failed || !ok || s.rate <= 0 {
		return iv
	}
	rest := time.Duration(float64(budget.Period) * float64(u.cost()) / s.rate)
	return max(iv, now.Sub(start)+rest)
}

func (u *unit) cost() int {
	return max(u.sumWindows(func(s *unitState, ws *windowState) int {
		if s.begun.IsZero() || ws.DataTime.Before(s.begun) {
			return u.collector.Fetched.Cost(ws.Payload)
		}
		return 0
	}), 1)
}

// fullCost is a whole refresh's cost: the budget planning figure.
func (u *unit) fullCost() int {
	return u.sumWindows(func(_ *unitState, ws *windowState) int { return max(ws.Hint, 1) })
}

func (u *unit) sumWindows(f func(*unitState, *windowState) int) int {
	s := u.state
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, w := range u.windows {
		n += f(s, s.window(w))
	}
	return n
}

func (u *unit) dueAt() time.Time {
	u.state.mu.Lock()
	defer u.state.mu.Unlock()
	return u.state.health.NextRefresh
}

// run: settled means the refresh ended, in success or failure, not paused for the budget.
func (u *unit) run(ctx context.Context, now time.Time, res *budget.Reservation) (settled bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, u.timing.refreshTimeout)
	defer cancel()
	client := u.key.client.Gated(func(ctx context.Context) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !res.Take() {
			return errGrantSpent
		}
		u.key.org.spend(u.collector.Name, u.key.org.clock.Now())
		return nil
	})
	s := u.state
	s.mu.Lock()
	if s.begun.IsZero() {
		s.begun = now
	}
	s.mu.Unlock()

	complete := true
	for _, w := range u.windows {
		s.mu.Lock()
		ws := s.window(w)
		work := *ws
		old := work
		skip := !ws.DataTime.Before(s.begun)
		s.mu.Unlock()
		if skip {
			continue
		}
		// advance works on a copy, without the lock, so scrapes never wait for requests.
		var done bool
		refused := work.RefusedFuture
		done, err = u.advance(ctx, client, &work, w, now)
		if w.month {
			u.holdCounters(&old, &work)
		}
		if !work.RefusedFuture.Equal(refused) {
			u.log.Warn("the API refused a dateTo in the future (400); the month-to-date counters ask for dateTo = now (RFC 3339) this month, and are only as exact as the API's time resolution",
				"month", work.RefusedFuture.Format("2006-01"))
		}
		s.mu.Lock()
		*s.window(w) = work
		s.version++
		s.changes++
		s.mu.Unlock()
		if err == nil && !done && ctx.Err() != nil {
			err = ctx.Err() // the refresh timeout or shutdown, not the budget
		}
		if err != nil || !done {
			complete = false
			break
		}
	}
	u.finish(now, complete, err)
	return complete || err != nil, err
}

func (u *unit) hasData() bool {
	u.state.mu.Lock()
	defer u.state.mu.Unlock()
	return !u.state.health.LastSuccess.IsZero()
}

var errGrantSpent = errors.New("requests reserved for this refresh are used up")

func (u *unit) finish(now time.Time, complete bool, err error) {
	iv := u.interval() // before the lock: it reads every unit's cost
	s := u.state
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes++
	h := &s.health
	if err == nil {
		if !complete {
			// The grant ran out: no failure; due from now, behind units due before, resuming where it stopped.
			h.NextRefresh = now
			return
		}
		if h.Failed {
			u.log.Info("refresh succeeded again")
		}
		// A refresh spread over hours counts from its start, so a walk taking its whole interval restarts at once.
		start := s.begun
		if start.IsZero() || start.After(now) {
			start = now
		}
		h.succeed(now, iv)
		h.NextRefresh = laterOf(start.Add(iv), now.Add(u.timing.minInterval))
		s.begun = time.Time{}
		return
	}
	class := mintlify.Classify(err)
	reason := class.Reason()
	logf, first := h.fail(reason, u.log)
	cached := "no data cached yet"
	if u.showsData() {
		cached = "serving cached data"
	}
	if class.Kind != mintlify.KindRateLimited {
		u.forgetEmptyProgress()
	}
	switch {
	case class.Kind == mintlify.KindRateLimited:
		// The budget is the organization's: the key backs off and every unit under it waits. Keep serving.
		h.Failed = false
		logf("upstream rate limit hit (429); backing off, "+cached, "err", err)
	case class.Auth():
		// Retrying soon cannot help; someone has to fix the key.
		h.NextRefresh = now.Add(u.timing.maxInterval)
		if first {
			u.log.Error(authHint(class), "err", err, "retry_at", h.NextRefresh)
		}
	default:
		// Per-unit back-off; whole-upstream outages are also spaced per key by the circuit breaker.
		backoff := u.timing.minInterval << min(h.Failures-1, 10)
		h.NextRefresh = now.Add(min(backoff, max(iv, u.timing.minInterval)))
		logf("refresh failed; "+cached, "reason", reason, "err", err, "retry_at", h.NextRefresh)
	}
}

func authHint(c mintlify.Class) string {
	if c.Kind == mintlify.KindUnauthorized {
		return "API key refused (401): it is unknown, revoked or expired. Create an admin key (prefix mint_) in the Mintlify dashboard and update the key's env variable or file, then reload"
	}
	return "API key not allowed (403): the key may lack the needed scope, this host may be outside the key's IP allowlist, or the project may belong to another organization"
}

func (u *unit) showsData() bool {
	return slices.ContainsFunc(u.windows, func(w windowSpec) bool { return u.shows(u.state.window(w)) })
}

// forgetEmptyProgress: a failed first walk that shows nothing is not partial and has no last success.
func (u *unit) forgetEmptyProgress() {
	for _, w := range u.windows {
		if ws := u.state.window(w); ws.DataTime.IsZero() && !ws.Progress.IsZero() && !u.shows(ws) {
			ws.Progress = time.Time{}
			u.state.version++
		}
	}
}

// shownSince is the last complete refresh, or the oldest shown window when a paused refresh showed newer data:
// a first walk shows as soon as its pages are paid for; partial as shownAt's. The caller holds the state lock.
func (u *unit) shownSince() (since time.Time, partial bool) {
	s := u.state
	var last time.Time
	for _, w := range u.windows {
		t, p := shownAt(s.window(w))
		partial = partial || p
		if !t.IsZero() && (last.IsZero() || t.Before(last)) {
			last = t
		}
	}
	return laterOf(s.health.LastSuccess, last), partial
}

// shownAt: partial is what a refresh under way has read so far (a first walk's pages, finished days).
func shownAt(ws *windowState) (t time.Time, partial bool) {
	if ws.Payload != nil && ws.Progress.After(ws.DataTime) {
		return ws.Progress, true
	}
	return ws.DataTime, false
}
