// Package engine is the exporter's refresh engine: the plan a
// configuration makes (keys, projects, collectors), the scheduler that
// spends each organization's analytics budget, the analytics units and
// the agent-job pollers, and the state files that carry their data and
// the budget across restarts. Refreshes are driven by scrapes (Refresh)
// but paced by the budget.
//
// It knows nothing of Prometheus: package collector reads its state
// through View and turns it into series; the API requests and the state
// files' writes are told through the callbacks of Options.
package engine

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// Clock tells the time; tests pass a fake one. It is the budget's, so one
// fake clock drives both.
type Clock = budget.Clock

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Options are the exporter's dependencies; all are optional.
type Options struct {
	Logger     *slog.Logger
	Clock      Clock
	Getenv     func(string) string // where api_key_env is looked up; default os.Getenv
	UserAgent  string
	HTTPClient *http.Client
	// RetryBase is the client's first retry delay; tests shorten it.
	RetryBase time.Duration
	// OnRequest is told of every HTTP request to the API (the client's
	// Observer); nil for none.
	OnRequest mintlify.Observer
	// OnSave is told of every write of a state file (file "state" or
	// "ledger"), failed when err is not nil; nil for none.
	OnSave func(file string, err error, at time.Time)
	// LockWait bounds each wait for the ledger's lock; 0 for the ledger's
	// own bound (statefiles.MaxLockWait).
	LockWait time.Duration
	// DefaultCollectors are the analytics collectors of projects whose
	// config lists none (the --collector.* flags); nil means pageviews.
	DefaultCollectors []string
	// ReadTrackedJobs reads the tracked-jobs file (global.tracked_jobs_file);
	// main passes trackfile.Read. Required when that setting is used.
	ReadTrackedJobs func(path string) ([]string, error)
	// StoragePath is the state file (--storage.path); "" keeps no state.
	StoragePath string
}

// Engine refreshes the data of every configured project.
type Engine struct {
	opts    Options
	log     *slog.Logger
	clock   Clock
	flights singleflight.Group // agent-job polls, one per project at a time

	ctx       context.Context // parent of every refresh; cancelled by Close
	cancel    context.CancelFunc
	closeOnce sync.Once
	wg        sync.WaitGroup

	limMu    sync.Mutex
	limiters map[string]*rate.Limiter // per project id, for agent-job polls

	// What outlives a config: organizations by key fingerprint and unit
	// state by unit id. Apply adds to them only when it succeeds.
	storeMu sync.Mutex
	orgs    map[string]*org
	states  map[unitID]*unitState
	saved   *savedState // read from the state file at start, until the first config claims it
	forgot  bool        // retired states were forgotten since the state file was last written (retire.go)

	// The state files (internal/statefiles): the data cache, the budget ledger
	// shared with the backfill, and the lock that makes this process their
	// only exporter. All nil or zero without --storage.path.
	files       *statefiles.Files
	ledgerKeys  map[string]statefiles.Key // read at start, for the organizations' restore
	saveMu      sync.Mutex
	savedAt     int       // the data's change count when the state file was last written
	dataWritten time.Time // when it last was, by the engine's clock (saveProgress)

	mu   sync.RWMutex
	plan *plan
}

// plan is what one config makes: keys, each with the units that spend its
// organization's budget, and the agent-job pollers, which do not.
type plan struct {
	gen   uint64 // counts the configs applied: renders are tied to one
	keys  []*keyState
	units []*unit // every analytics unit, in config order
	jobs  []*jobsUnit
}

func (p *plan) keyOf(o *org) *keyState {
	for _, k := range p.keys {
		if k.org == o {
			return k
		}
	}
	return nil
}

// New builds an exporter for cfg. It fails if a key cannot be read or is
// not an admin key. With a state file, what it holds is served at once.
func New(cfg *config.Config, o Options) (*Engine, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.HTTPClient == nil {
		// One pool of connections for every key's client, across reloads.
		o.HTTPClient = mintlify.NewHTTPClient()
	}
	e := &Engine{opts: o, log: o.Logger, clock: o.Clock,
		orgs: map[string]*org{}, states: map[unitID]*unitState{}}
	// The keys first, read once: a configuration that cannot start
	// touches no state file.
	secrets, err := cfg.ResolveKeys(e.getenv())
	if err != nil {
		return nil, err
	}
	if err := e.openState(cfg); err != nil {
		return nil, err
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if err := e.ApplyKeys(cfg, secrets); err != nil {
		e.cancel()
		e.closeState()
		return nil, err
	}
	return e, nil
}

// Apply switches to cfg. It builds the whole plan first, touching nothing
// that runs; only when every part of it worked does it swap the plan in
// and adopt its new organizations and unit states, in one step. A refused
// reload changes nothing. Units find their state by unit id (project id
// and collector), so data, schedule and a refresh in flight carry over;
// an organization is found by the key's fingerprint, so a renamed key
// keeps what it spent.
func (e *Engine) Apply(cfg *config.Config) error {
	secrets, err := cfg.ResolveKeys(e.getenv())
	if err != nil {
		return err
	}
	return e.ApplyKeys(cfg, secrets)
}

// ApplyKeys is Apply with cfg's keys already read (cfg.ResolveKeys), so
// that a reload that read them under its own deadline reads no key file
// twice.
func (e *Engine) ApplyKeys(cfg *config.Config, secrets map[string]secret.Secret) error {
	e.storeMu.Lock()
	defer e.storeMu.Unlock()
	b := &builder{e: e, cfg: cfg, secrets: secrets, orgs: map[string]*org{}, states: map[unitID]*unitState{},
		keys: map[string]*keyState{}, plan: &plan{}}
	for i, k := range cfg.Keys {
		if err := b.key(k); err != nil {
			return cfg.KeyError(i, err)
		}
	}
	for _, pr := range cfg.Projects {
		if err := b.project(pr); err != nil {
			return err
		}
	}
	e.adopt(b)
	for _, k := range b.plan.keys {
		k.warnCycle(e.log)
	}
	return nil
}

// builder makes the plan of one config without touching what runs: new
// organizations and unit states wait in it until adopt.
type builder struct {
	e       *Engine
	cfg     *config.Config
	secrets map[string]secret.Secret
	orgs    map[string]*org       // new organizations, by fingerprint
	states  map[unitID]*unitState // new unit states
	keys    map[string]*keyState  // by key name
	plan    *plan
}

// org is the organization of the key with fingerprint fp: the running
// one, or a new one with what the state file remembers of it.
func (b *builder) org(fp string, limit int) *org {
	if o, ok := b.e.orgs[fp]; ok {
		return o
	}
	if o, ok := b.orgs[fp]; ok {
		return o
	}
	o := &org{fp: fp, budget: budget.New(limit, b.e.clock), clock: b.e.clock}
	b.e.restoreOrg(o, b.e.clock.Now())
	b.orgs[fp] = o
	return o
}

// state is the unit state of id: the running one, or a new one with what
// the state file remembers of it.
func (b *builder) state(id unitID) *unitState {
	if s, ok := b.e.states[id]; ok {
		return s
	}
	if s, ok := b.states[id]; ok {
		return s
	}
	s := b.e.saved.restoreUnit(id)
	b.states[id] = s
	return s
}

// key builds a key's clients and finds its organization. Its errors do
// not name the key: Apply puts them in the form of a config error.
func (b *builder) key(k config.Key) error {
	g := b.cfg.Global
	co := mintlify.Options{
		BaseURL:        g.APIURL,
		Key:            b.secrets[k.Name],
		UserAgent:      b.e.opts.UserAgent,
		HTTPClient:     b.e.opts.HTTPClient,
		RequestTimeout: time.Duration(g.RequestTimeout),
		RetryBase:      b.e.opts.RetryBase,
		Observer:       b.e.opts.OnRequest,
		Logger:         b.e.log.With("key", k.Name),
	}
	jobs, err := mintlify.New(co)
	if err != nil {
		return err
	}
	// Analytics calls retry once at most: every attempt is charged to the
	// hourly budget.
	co.MaxRetries = 1
	client, err := mintlify.New(co)
	if err != nil {
		return err
	}
	ks := &keyState{name: k.Name, client: client, jobs: jobs, limit: k.EffectiveBudget(), weights: g.CollectorWeights,
		org: b.org(statefiles.Fingerprint(b.secrets[k.Name].Reveal()), k.EffectiveBudget())}
	for _, other := range b.plan.keys {
		if other.org == ks.org {
			return fmt.Errorf("holds the same API key as key %q; list it once and point both projects at it", other.name)
		}
	}
	b.keys[k.Name] = ks
	b.plan.keys = append(b.plan.keys, ks)
	return nil
}

// project builds a project's analytics units and its agent-job poller.
func (b *builder) project(pr config.Project) error {
	g := b.cfg.Global
	t := timing{
		minInterval:    time.Duration(g.MinRefreshInterval),
		maxInterval:    time.Duration(g.MaxRefreshInterval),
		maxAge:         time.Duration(g.MaxAge),
		refreshTimeout: refreshTimeout(time.Duration(g.MaxRefreshInterval)),
	}
	ks := b.keys[pr.KeyName(b.cfg)]
	label := pr.Name
	if label == "" {
		label = pr.ID
	}
	var windows []windowSpec
	for _, w := range pr.Windows {
		windows = append(windows, windowSpec{label: w.Label, duration: w.Duration})
	}
	filter := PathFilter{Match: pr.PathAllowed, MaxPaths: pr.MaxPaths}
	enabled := pr.Collectors
	if len(enabled) == 0 {
		enabled = b.e.defaultCollectors()
	}
	for _, name := range enabled {
		k, ok := kind.Lookup(name)
		if !ok {
			return fmt.Errorf("project %q: unknown collector %q", label, name)
		}
		settings := source.Settings{Keep: filter.Allowed, TopN: g.TopN(name), LookBack: g.LookBack(name)}
		src, err := b.fetcher(k, pr.ID, label, ks, settings, filter)
		if err != nil {
			return err
		}
		unitWindows := windowsOf(k, windows)
		id := unitID{project: pr.ID, collector: name}
		u := &unit{id: id, kind: k, project: label, src: src, settings: settings, filter: filter, windows: unitWindows, key: ks, timing: t,
			log: b.e.log.With("project", label, "collector", name), state: b.state(id)}
		b.plan.units = append(b.plan.units, u)
		ks.units = append(ks.units, u)
	}
	b.plan.jobs = append(b.plan.jobs, b.e.newJobsUnit(b.cfg, pr, label, ks, t))
	return nil
}

// fetcher is the code that fetches kind k's data for project id (label
// its label value): a walk for the walked kinds, the kind's Fetch for
// the others (internal/source).
func (b *builder) fetcher(k kind.Kind, id, label string, ks *keyState, settings source.Settings, filter PathFilter) (fetcher, error) {
	if code, ok := source.Lookup(k.Name); ok {
		return &perWindow{kind: k, code: code, project: label, id: id, settings: settings}, nil
	}
	if walked, ok := source.LookupWalked(k.Name); ok {
		g := b.cfg.Global
		return &pageViews{kind: walked.Rows, project: label, id: id, filter: filter,
			opts: walkSettings{pageSize: g.PageSize, concurrency: g.PageConcurrency, maxPages: g.MaxPages}}, nil
	}
	return nil, fmt.Errorf("project %q: collector %q has no code in internal/source", label, k.Name)
}

// windowsOf are the windows of a unit of kind k in a project that lists
// windows. A kind that adds up over days counts the month to date; the
// rolling windows come on top, when the config lists them. One that does
// not (unique visitors) has the windows only, 24h when the config lists
// none. A month-only kind has the month alone, a snapshot one its one
// window without a label.
func windowsOf(k kind.Kind, windows []windowSpec) []windowSpec {
	switch k.Windows {
	case kind.WindowsOnly:
		if len(windows) == 0 {
			return []windowSpec{windowsOnlyDefault}
		}
		return windows
	case kind.MonthOnly:
		return []windowSpec{monthWindow}
	case kind.Snapshot:
		return []windowSpec{snapshotWindow}
	}
	return append([]windowSpec{monthWindow}, windows...)
}

// adopt swaps in a plan that was built whole: its new organizations and
// unit states join the store, limits change, states no config uses any
// more are retired (retire.go). The caller holds storeMu.
func (e *Engine) adopt(b *builder) {
	p := b.plan
	for fp, o := range b.orgs {
		e.orgs[fp] = o
	}
	for _, ks := range p.keys {
		ks.org.budget.SetLimit(ks.limit)
	}
	for id, s := range b.states {
		e.states[id] = s
	}
	live := map[unitID]bool{}
	for _, u := range p.units {
		live[u.id] = true
		u.state.mu.Lock()
		u.state.use()
		if r := u.state.health.LastReason; r == mintlify.ReasonUnauthorized || r == mintlify.ReasonForbidden {
			// The usual fix for a refused key is a new key and a reload:
			// try at once rather than wait out the long auth back-off.
			u.state.health.NextRefresh = time.Time{}
		}
		u.state.mu.Unlock()
	}
	e.retire(live, b.e.clock.Now())
	e.saved, e.ledgerKeys = nil, nil // claimed: a later reload starts new units and keys afresh
	e.mu.Lock()
	if e.plan != nil {
		p.gen = e.plan.gen + 1
	}
	e.plan = p
	e.mu.Unlock()
}

func (e *Engine) current() *plan {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.plan
}

// jobPollRate bounds GetJob calls per project. The API documents no limit
// for reading jobs (only 100 writes per project per hour), and job polls
// do not count against the analytics budget; one call a second with bursts
// of 5 keeps a long list of tracked jobs from hammering it all the same.
const (
	jobPollRate  = rate.Limit(1)
	jobPollBurst = 5
)

// jobLimiter returns the project's poll limiter, the same one across
// reloads so a reload cannot reset it.
func (e *Engine) jobLimiter(projectID string) *rate.Limiter {
	e.limMu.Lock()
	defer e.limMu.Unlock()
	if e.limiters == nil {
		e.limiters = make(map[string]*rate.Limiter)
	}
	l, ok := e.limiters[projectID]
	if !ok {
		l = rate.NewLimiter(jobPollRate, jobPollBurst)
		e.limiters[projectID] = l
	}
	return l
}

// refreshTimeout bounds one refresh so a hung upstream cannot hold a
// singleflight slot for ever; the sweep gives up and the next scrape
// starts a new one.
func refreshTimeout(maxInterval time.Duration) time.Duration {
	return min(max(maxInterval/2, time.Minute), 10*time.Minute)
}

func (e *Engine) defaultCollectors() []string {
	if len(e.opts.DefaultCollectors) == 0 {
		return kind.Defaults()
	}
	return e.opts.DefaultCollectors
}

func (e *Engine) getenv() func(string) string {
	if e.opts.Getenv != nil {
		return e.opts.Getenv
	}
	return os.Getenv
}

// Refresh starts what is due: each key's scheduler, which runs its due
// units one at a time, and each due agent-job poll. It waits for them until
// ctx ends (the scrape's deadline); they go on after that in the
// background, and concurrent callers share them.
func (e *Engine) Refresh(ctx context.Context) {
	p := e.current()
	now := e.clock.Now()
	if e.ctx.Err() != nil {
		return
	}
	// A scrape waits for a refresh only when it has nothing to show
	// without it, and the refresh may still end within the scrape: once
	// a refresh has run longer than one scrape's time, the next scrapes
	// answer at once (from the cache, or with up = 0).
	patience := time.Duration(math.MaxInt64)
	if d, ok := ctx.Deadline(); ok {
		patience = time.Until(d)
	}
	worthWaiting := func(hasData bool, started time.Time) bool {
		return !hasData && time.Since(started) < patience
	}
	var waits []<-chan struct{}
	for _, k := range p.keys {
		var due []*unit
		for _, u := range k.units {
			if !now.Before(u.dueAt()) {
				due = append(due, u)
			}
		}
		if len(due) == 0 {
			continue
		}
		run, started := e.schedule(k.org)
		if worthWaiting(!slices.ContainsFunc(due, func(u *unit) bool { return !u.hasData() }), started) {
			waits = append(waits, run)
		}
	}
	for _, j := range p.jobs {
		if j.due(now) {
			run := e.startJobs(j)
			j.mu.Lock()
			started := j.started
			j.mu.Unlock()
			if worthWaiting(j.hasData(), started) {
				waits = append(waits, run)
			}
		}
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return
		}
	}
}

// Wait blocks until no refresh is running. Tests use it to reach a known
// state without sleeping.
func (e *Engine) Wait() { e.wg.Wait() }

// Close stops running refreshes, waits for them, saves the state and
// closes idle connections to the API.
func (e *Engine) Close() {
	e.closeOnce.Do(func() {
		e.cancel()
		e.wg.Wait()
		e.save()
		e.closeState()
		e.opts.HTTPClient.CloseIdleConnections()
	})
}
