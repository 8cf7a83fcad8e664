package engine

import (
	"maps"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// View is what package collector reads of the engine at one moment; reading it makes no request.
type View struct {
	Gen   uint64 // counts the configurations applied: a reload changes labels and filters
	Units []UnitView
	Jobs  []JobsView
	keys  []*keyState
	now   time.Time
	memo  *sharesMemo
}

// sharesMemo works out each key's shares once per View: every unit's health needs them.
type sharesMemo struct {
	mu    sync.Mutex
	byKey map[*keyState]map[string]*collectorShare
}

func (m *sharesMemo) of(k *keyState) map[string]*collectorShare {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byKey[k]
	if !ok {
		s = k.shares()
		m.byKey[k] = s
	}
	return s
}

// View is the engine's state at now (the engine's clock).
func (e *Engine) View() View {
	p := e.current()
	now := e.clock.Now()
	v := View{Gen: p.gen, keys: p.keys, now: now, memo: &sharesMemo{byKey: map[*keyState]map[string]*collectorShare{}}}
	for _, u := range p.units {
		v.Units = append(v.Units, UnitView{u: u, now: now, memo: v.memo})
	}
	for _, j := range p.jobs {
		v.Jobs = append(v.Jobs, JobsView{j: j, now: now})
	}
	return v
}

// Keys are worked out when asked for, so a reader of the data only does not pay for the cycles.
func (v View) Keys() []KeyView {
	ks := make([]KeyView, 0, len(v.keys))
	for _, k := range v.keys {
		cycle, _, _ := k.cycle(v.memo.of(k))
		ks = append(ks, KeyView{Name: k.name, Limit: k.limit, Used: k.org.budget.Used(), Cycle: cycle,
			Backoff: max(k.org.pausedUntil().Sub(v.now), 0)})
	}
	return ks
}

// KeyView is one configured key's analytics budget.
type KeyView struct {
	Name    string
	Limit   int           // requests an hour the exporter allows itself
	Used    int           // requests made in the last hour
	Cycle   time.Duration // planned time of one full refresh of the key's work
	Backoff time.Duration // left before requests resume; 0 when not backing off
}

// Health is the outcome of the refreshes of a unit or agent-job poller.
type Health struct {
	Collector, Project string // label values
	// Up: the last refresh succeeded (a budget cut is no failure) and the data, partial included, is younger than max_age.
	Up          bool
	LastSuccess time.Time     // zero before the first
	Interval    time.Duration // between refreshes, as the budget allows now
	// Partial: what is shown is what a refresh still under way has read so far.
	Partial    bool
	FailCounts map[string]float64 // failed refreshes by reason (mintlify.Reasons)
}

func (h health) view(collector, project string, now time.Time, maxAge, interval time.Duration, partial bool) Health {
	return Health{Collector: collector, Project: project, Up: h.fresh(now, maxAge) && !h.Failed,
		LastSuccess: h.LastSuccess, Interval: interval, Partial: partial, FailCounts: h.FailCounts}
}

// UnitView is one analytics unit: a collector of one project.
type UnitView struct {
	u    *unit
	now  time.Time
	memo *sharesMemo
}

// Collector is the unit's collector.
func (v UnitView) Collector() spec.Collector { return v.u.collector }

// Project is the project's label value.
func (v UnitView) Project() string { return v.u.project }

// Settings are the project's settings of the collector's samples.
func (v UnitView) Settings() spec.Settings { return v.u.settings }

// Health is the unit's health now; its age is unit.shownSince's.
func (v UnitView) Health() Health {
	u := v.u
	iv := u.expectedInterval(v.now, v.memo.of(u.key)) // before the lock: the shares read every unit's cost
	u.state.mu.Lock()
	h := u.state.health
	h.FailCounts = maps.Clone(h.FailCounts)
	var partial bool
	h.LastSuccess, partial = u.shownSince()
	u.state.mu.Unlock()
	return h.view(u.collector.Name, u.project, v.now, u.timing.maxAge, iv, partial)
}

// Fresh reports whether the unit's data is shown: younger than max_age.
func (v UnitView) Fresh() bool {
	_, fresh := v.Version()
	return fresh
}

// Version identifies the unit's data as shown now; it changes when data lands or goes stale.
func (v UnitView) Version() (version int, fresh bool) {
	s := v.u.state
	s.mu.Lock()
	defer s.mu.Unlock()
	last, _ := v.u.shownSince()
	return s.version, !last.IsZero() && v.now.Sub(last) <= v.u.timing.maxAge
}

// Window is one window of a unit's data, as it is when read.
type Window struct {
	Label string // the window label: "month" for the month window, "" for a snapshot
	Month bool   // the month-to-date window, whose series are the counters
	// The last payload, when it was fetched whole (zero if never) and the range of what it shows.
	DataTime time.Time
	Payload  spec.Payload
	Range    *mintlify.DateRange
	// Floor holds month counters at the higher values they served; nil when none fell; not to be changed.
	Floor map[CounterKey]float64
	// Partial: Payload holds more than DataTime says (what a paused refresh finished); shown all the same.
	Partial bool
}

// Windows calls fn with each window in config order under the unit's lock: fn must not keep it nor call the engine.
func (v UnitView) Windows(fn func(Window)) {
	s := v.u.state
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range v.u.windows {
		ws := s.window(w)
		win := Window{Label: w.label, Month: w.month, DataTime: ws.DataTime, Payload: ws.Payload, Range: ws.Range,
			Partial: ws.Payload != nil && ws.Progress.After(ws.DataTime)}
		if ws.Floor != nil {
			win.Floor = ws.Floor.Values
		}
		fn(win)
	}
}

// Memo returns build's result, calling build again only when the data changed: the collector keeps the
// unit's bookkeeping series there. build runs under the memo's own lock and may call Windows.
func (v UnitView) Memo(build func() any) any {
	u := v.u
	u.mu.Lock()
	defer u.mu.Unlock()
	u.state.mu.Lock()
	version := u.state.version
	u.state.mu.Unlock()
	if u.memo != nil && u.memoAt == version {
		return u.memo
	}
	u.memo, u.memoAt = build(), version
	return u.memo
}

// JobsView is the agent-job poller of one project.
type JobsView struct {
	j   *jobsUnit
	now time.Time
}

// Health is the poller's health now.
func (v JobsView) Health() Health {
	j := v.j
	j.mu.Lock()
	h := j.h
	h.FailCounts = maps.Clone(h.FailCounts)
	j.mu.Unlock()
	return h.view("agent_jobs", j.project, v.now, j.timing.maxAge, j.timing.fixedInterval, false)
}

// Jobs are the project's tracked jobs as last polled.
func (v JobsView) Jobs() JobsStatus { return v.j.src.status(v.now) }

// JobsStatus is what the poller knows of a project's tracked jobs.
type JobsStatus struct {
	Project  string  // label value
	NotFound float64 // 404 answers to polls, since start
	Tracked  int     // ids followed
	Ignored  int     // ids listed beyond the cap
	// Jobs are those found and not ended longer than job_retention ago.
	Jobs []TrackedJob
}

// TrackedJob is one job as last polled.
type TrackedJob struct {
	ID  string
	Job mintlify.Job
}

// KeyExpiry is a configured key's expires_at.
type KeyExpiry struct {
	Name      string
	ExpiresAt time.Time
}

// KeyExpiries are the keys of the configuration applied that have an expires_at, in its order.
func (v View) KeyExpiries() []KeyExpiry {
	var out []KeyExpiry
	for _, k := range v.keys {
		if !k.expiresAt.IsZero() {
			out = append(out, KeyExpiry{Name: k.name, ExpiresAt: k.expiresAt})
		}
	}
	return out
}
