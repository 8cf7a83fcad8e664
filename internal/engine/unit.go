package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
)

// timing is what the config says about refresh timing.
type timing struct {
	minInterval, maxInterval, maxAge, refreshTimeout time.Duration
	fixedInterval                                    time.Duration // agent_jobs: the poll interval
}

// health is a unit's schedule and the outcome of its refreshes. It is part
// of the unit's state, so it survives reloads and restarts.
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

// fail records a failure; it reports whether the reason is new (worth a
// log line at warning level rather than debug).
func (h *health) fail(reason string) bool {
	if h.FailCounts == nil {
		h.FailCounts = map[string]float64{}
	}
	h.FailCounts[reason]++
	h.Failures++
	first := h.LastReason != reason
	h.LastReason, h.Failed = reason, true
	return first
}

func (h *health) fresh(now time.Time, maxAge time.Duration) bool {
	return !h.LastSuccess.IsZero() && now.Sub(h.LastSuccess) <= maxAge
}

// unitID is what a unit's data belongs to: the upstream project (by id,
// not by the name it is exported under) and the collector. A reload that
// keeps both keeps the data; one that changes the id starts afresh.
type unitID struct{ project, collector string }

func (id unitID) String() string { return id.project + "/" + id.collector }

// unitState is everything a unit learned that outlives the config that
// made the unit: its health and, per window, its data. One exists per
// unitID in the exporter's store; units of successive configs share it, so
// a refresh that runs across a reload lands in the new config's unit.
type unitState struct {
	mu      sync.Mutex
	health  health
	windows map[string]*windowState // by windowSpec.key()
	version int                     // bumped whenever data changes
	// Round is when the current refresh round began: a window whose data
	// is at least as new is done for this round.
	round time.Time
	// turn is when the scheduler last picked the unit, in picks of its
	// organization: of two units due at the same time, the one picked
	// longer ago goes first. Not saved.
	turn uint64

	// retired is when the last config that used the unit was replaced by
	// one that does not; zero while a config uses it (retire.go).
	retired time.Time

	// the last JSON encoding, for the state file
	changes   int // bumped on every change, data or health
	encoded   []byte
	encodedAt int
}

// windowState is one window's data and the walk that renews it. It is
// stored as a windowRecord (statefile.go).
type windowState struct {
	DataTime time.Time // when Data landed; zero if none
	Hint     int       // pages the last walk had
	// RefusedFuture is the start of the month in which the upstream
	// answered the month window's day range (dateTo tomorrow) with 400;
	// that month's refreshes ask for [1st, now) instead. Zero if never.
	RefusedFuture time.Time
	// Data is the last complete walk (pageviews, visitors); Walk the one in
	// progress, whose pages are kept until it completes.
	Data     *mintlify.Walk
	Progress time.Time // when Walk last read a page
	Walk     *mintlify.Walk
	// Range is what Payload covers: the kinds of internal/source keep
	// their data of a window there.
	Range   *mintlify.DateRange
	Payload source.Payload
	// Floor holds the month window's counters at what they served
	// (holdCounters); nil when none fell.
	Floor *counterFloor
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

// fetcher is the endpoint side of an analytics collector: it advances one
// window's data by the requests its gate lets through. The unit around it
// owns scheduling, health and the budget; package collector turns the
// data into series (View).
type fetcher interface {
	// cost is how many requests the window still needs this round.
	cost(ws *windowState) int
	// advance fetches for the window through c (the key's client, gated
	// by the unit's grant); done reports that new data landed.
	advance(ctx context.Context, c *mintlify.Client, ws *windowState, w windowSpec, now time.Time) (done bool, err error)
	// shows reports whether the window has data to show: a first walk
	// the budget paused may have none yet (the feedback backlog's).
	shows(ws *windowState) bool
}

// unit is one analytics collector of one project under the current
// config: what to fetch and how to label it. Its state lives in the store.
type unit struct {
	id      unitID
	kind    kind.Kind
	project string // label value
	src     fetcher
	// What the project's configuration says of the data shown: the
	// kinds' settings (internal/source) and the walks' path filter.
	settings source.Settings
	filter   PathFilter
	windows  []windowSpec
	key      *keyState
	timing   timing
	log      *slog.Logger
	state    *unitState

	mu     sync.Mutex
	memo   any // what Memo's caller built of state version memoAt
	memoAt int
}

// interval is when the unit is due again after a refresh: the planned
// interval within [min_refresh_interval, max_refresh_interval]. A unit
// whose planned interval is longer is due sooner than the budget pays
// for, and waits its turn (keyState.next): its refreshes come
// plannedInterval apart.
func (u *unit) interval() time.Duration {
	return min(u.plannedInterval(u.key.shares()), u.timing.maxInterval)
}

// plannedInterval is the time a full round of the unit's kind under its
// key takes at the kind's rate (shares, of u.key), at least
// min_refresh_interval, also beyond max_refresh_interval:
//
//	interval(kind) = 1h × Σ cost(units of kind) / rate(kind)
//
// where the rates add up to the key's limit: turning on a collector
// slows the others down instead of overspending.
func (u *unit) plannedInterval(shares map[string]*kindShare) time.Duration {
	iv := budget.Period
	if s, ok := shares[u.kind.Name]; ok {
		iv = s.interval()
	}
	return max(iv, u.timing.minInterval)
}

// expectedInterval is the time between the unit's refreshes as the
// budget makes it now, what mintlify_refresh_interval_seconds reports:
// the planned interval or, while a round the budget paused is under way
// (not one that failed), at least the time it has run so far plus what
// the rest of it costs at its kind's rate.
func (u *unit) expectedInterval(now time.Time, shares map[string]*kindShare) time.Duration {
	iv := u.plannedInterval(shares)
	u.state.mu.Lock()
	start, failed := u.state.round, u.state.health.Failed
	u.state.mu.Unlock()
	s, ok := shares[u.kind.Name]
	if start.IsZero() || start.After(now) || failed || !ok || s.rate <= 0 {
		return iv
	}
	rest := time.Duration(float64(budget.Period) * float64(u.cost()) / s.rate)
	return max(iv, now.Sub(start)+rest)
}

// cost is the requests the unit's current round still needs.
func (u *unit) cost() int {
	return max(u.sumWindows(func(s *unitState, ws *windowState) int {
		if s.round.IsZero() || ws.DataTime.Before(s.round) {
			return u.src.cost(ws)
		}
		return 0
	}), 1)
}

// fullCost is what a whole round costs: the budget planning figure.
func (u *unit) fullCost() int {
	return u.sumWindows(func(_ *unitState, ws *windowState) int { return max(ws.Hint, 1) })
}

// sumWindows adds up f over the unit's windows, under its state's lock.
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

// run advances the unit's round by what res lets through. settled
// reports that the round ended, in success or failure, rather than
// paused for the budget.
func (u *unit) run(ctx context.Context, now time.Time, res *budget.Reservation) (settled bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, u.timing.refreshTimeout)
	defer cancel()
	// Every request (retries included) takes one of the grant's.
	client := u.key.client.Gated(func(ctx context.Context) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !res.Take() {
			return errGrantSpent
		}
		u.key.org.spend(u.kind.Name, u.key.org.clock.Now())
		return nil
	})
	s := u.state
	s.mu.Lock()
	if s.round.IsZero() {
		s.round = now
	}
	s.mu.Unlock()

	complete := true
	for _, w := range u.windows {
		s.mu.Lock()
		ws := s.window(w)
		work := *ws
		old := work
		skip := !ws.DataTime.Before(s.round)
		s.mu.Unlock()
		if skip {
			continue
		}
		// The fetcher works on a copy, without the lock, so scrapes are
		// never held up by requests; it clones what it changes.
		var done bool
		refused := work.RefusedFuture
		done, err = u.src.advance(ctx, client, &work, w, now)
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

// hasData reports whether the unit ever refreshed: it has data to show
// without waiting for a refresh.
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
			// The grant ran out mid-round: not a failure. The unit stays
			// due, from now: it waits behind the units due before it, and
			// resumes where it stopped when its kind has room again.
			h.NextRefresh = now
			return
		}
		if h.Failed {
			u.log.Info("refresh succeeded again")
		}
		// A round the budget spread over hours counts from its start, so
		// a walk that takes its whole interval starts again at once
		// rather than wait as long again.
		start := s.round
		if start.IsZero() || start.After(now) {
			start = now
		}
		h.succeed(now, iv)
		h.NextRefresh = laterOf(start.Add(iv), now.Add(u.timing.minInterval))
		s.round = time.Time{}
		return
	}
	class := mintlify.Classify(err)
	reason := class.Reason()
	first := h.fail(reason)
	logf := u.log.Warn
	if !first {
		logf = u.log.Debug // the same failure again: said once already
	}
	cached := "no data cached yet"
	if u.showsData() {
		cached = "serving cached data"
	}
	if class.Kind != mintlify.KindRateLimited {
		u.forgetEmptyProgress()
	}
	switch {
	case class.Kind == mintlify.KindRateLimited:
		// The analytics budget is the organization's: the key backs off
		// (see org.rateLimited) and every unit under it waits. Keep serving.
		h.Failed = false
		logf("upstream rate limit hit (429); backing off, "+cached, "err", err)
	case class.Auth():
		// Retrying soon cannot help; someone has to fix the key.
		h.NextRefresh = now.Add(u.timing.maxInterval)
		if first {
			u.log.Error(authHint(class), "err", err, "retry_at", h.NextRefresh)
		}
	default:
		// Exponential back-off per unit; outages of the whole upstream
		// are also spaced out per key by the circuit breaker.
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

// showsData reports whether some window has data to show. The caller
// holds the state lock.
func (u *unit) showsData() bool {
	for _, w := range u.windows {
		if u.src.shows(u.state.window(w)) {
			return true
		}
	}
	return false
}

// forgetEmptyProgress ends, on a failure, the "under way" of a first walk
// that shows nothing yet: not partial, no last success. The caller holds
// the state lock.
func (u *unit) forgetEmptyProgress() {
	for _, w := range u.windows {
		if ws := u.state.window(w); ws.DataTime.IsZero() && !ws.Progress.IsZero() && !u.src.shows(ws) {
			ws.Progress = time.Time{}
			u.state.version++
		}
	}
}

// shownSince is the age that decides whether the data is fresh: the last
// complete round, or when a round the budget paused has shown newer data
// since (shownAt), the oldest of what the windows show. A first walk in
// progress is thus shown as soon as its pages are paid for, and a month
// of conversations as soon as its first days are walked. The caller holds
// the state lock.
func (u *unit) shownSince() time.Time {
	s := u.state
	var last time.Time
	for _, w := range u.windows {
		t, _ := shownAt(s.window(w))
		if !t.IsZero() && (last.IsZero() || t.Before(last)) {
			last = t
		}
	}
	return laterOf(s.health.LastSuccess, last)
}

// shownAt is when the data a window shows landed, and whether it is what
// a round still under way has read so far (partial): a first page walk's
// pages, or the days of conversations a paused fetch finished.
func shownAt(ws *windowState) (t time.Time, partial bool) {
	switch {
	case ws.Payload != nil && ws.Progress.After(ws.DataTime):
		return ws.Progress, true
	case ws.DataTime.IsZero() && ws.Walk != nil && ws.Walk.Requests > 0:
		return ws.Progress, true
	}
	return ws.DataTime, false
}

// partial reports whether some window shows what a round under way has
// read so far rather than a complete round. The caller holds the state
// lock.
func (u *unit) partial() bool {
	for _, w := range u.windows {
		if _, p := shownAt(u.state.window(w)); p {
			return true
		}
	}
	return false
}

// fresh is what decides whether the data series are shown.
func (u *unit) fresh(now time.Time) bool {
	u.state.mu.Lock()
	defer u.state.mu.Unlock()
	last := u.shownSince()
	return !last.IsZero() && now.Sub(last) <= u.timing.maxAge
}

// dataVersion identifies the unit's data as shown at now: it changes when
// data lands and when the data goes stale.
func (u *unit) dataVersion(now time.Time) (int, bool) {
	fresh := u.fresh(now)
	u.state.mu.Lock()
	defer u.state.mu.Unlock()
	return u.state.version, fresh
}
