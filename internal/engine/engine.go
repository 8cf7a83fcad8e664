// Package engine is the exporter's refresh engine: the plan a config makes, the scheduler that spends each
// organization's analytics budget, the units and job pollers, and the state files that carry them across
// restarts. Scrapes drive refreshes; the budget paces them. It knows nothing of Prometheus (see View).
package engine

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
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
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// Clock tells the time; it is the budget's, so one fake clock drives both in tests.
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
	// OnRequest is the client's Observer; nil for none.
	OnRequest mintlify.Observer
	// OnSave is told of every state-file write ("state" or "ledger"), failed when err is set.
	OnSave func(file string, err error, at time.Time)
	// LockWait bounds each wait for the ledger's lock; 0 for statefiles.MaxLockWait.
	LockWait time.Duration
	// Collectors are every collector a project may list (collector.All).
	Collectors spec.List
	// DefaultCollectors apply to projects that list none (--collector.*); nil means the collectors' defaults.
	DefaultCollectors []string
	// ReadTrackedJobs reads the tracked-jobs file (main passes trackfile.Read); required when one is set.
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

	// What outlives a config, by key fingerprint and unit id; Apply adds to it only when it succeeds.
	storeMu sync.Mutex
	orgs    map[string]*org
	states  map[unitID]*unitState
	saved   *stateFile // read from the state file at start, until the first config claims it
	forgot  bool       // retired states were forgotten since the state file was last written (retire.go)

	// The state files (internal/statefiles); nil without --storage.path.
	files       *statefiles.Files
	ledgerKeys  map[string]statefiles.Key // read at start, for the organizations' restore
	saveMu      sync.Mutex
	savedAt     int       // the data's change count when the state file was last written
	dataWritten time.Time // when it last was, by the engine's clock (saveProgress)

	mu   sync.RWMutex
	plan *plan
}

// plan: keys with the units that spend their organization's budget, and the job pollers, which do not.
type plan struct {
	gen   uint64 // counts the configs applied: renders are tied to one
	keys  []*keyState
	units []*unit // every analytics unit, in config order
	jobs  []*jobsUnit
}

func (p *plan) keyOf(o *org) *keyState {
	if i := slices.IndexFunc(p.keys, func(k *keyState) bool { return k.org == o }); i >= 0 {
		return p.keys[i]
	}
	return nil
}

// New builds an exporter for cfg; with a state file, what it holds is served at once.
func New(cfg *config.Config, o Options) (*Engine, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.HTTPClient == nil {
		// One pool of connections for every key's client, across reloads.
		o.HTTPClient = mintlify.NewHTTPClient()
	}
	if len(o.DefaultCollectors) == 0 {
		o.DefaultCollectors = o.Collectors.Defaults()
	}
	e := &Engine{opts: o, log: o.Logger, clock: o.Clock,
		orgs: map[string]*org{}, states: map[unitID]*unitState{}, limiters: map[string]*rate.Limiter{}}
	// Keys first: a configuration that cannot start touches no state file.
	secrets, err := cfg.ResolveKeys(o.Getenv)
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

// Apply switches to cfg in one step once its whole plan is built, so a refused reload changes nothing. Units
// keep their state by project id and collector, organizations by key fingerprint (a renamed key keeps its spend).
func (e *Engine) Apply(cfg *config.Config) error {
	secrets, err := cfg.ResolveKeys(e.opts.Getenv)
	if err != nil {
		return err
	}
	return e.ApplyKeys(cfg, secrets)
}

// ApplyKeys is Apply with cfg's keys already read, so a reload reads no key file twice.
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

// builder makes a config's plan without touching what runs; new state waits in it until adopt.
type builder struct {
	e       *Engine
	cfg     *config.Config
	secrets map[string]secret.Secret
	orgs    map[string]*org       // new organizations, by fingerprint
	states  map[unitID]*unitState // new unit states
	keys    map[string]*keyState  // by key name
	plan    *plan
}

func (b *builder) org(fp string, limit int) *org {
	if o, ok := b.e.orgs[fp]; ok {
		return o
	}
	if o, ok := b.orgs[fp]; ok {
		return o
	}
	o := &org{fp: fp, budget: budget.New(limit, b.e.clock), clock: b.e.clock, spent: map[string][]time.Time{}}
	b.e.restoreOrg(o, b.e.clock.Now())
	b.orgs[fp] = o
	return o
}

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

// key's errors do not name the key: Apply puts them in the form of a config error.
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
	// Retry once at most: every attempt is charged to the hourly budget.
	co.MaxRetries = 1
	client, err := mintlify.New(co)
	if err != nil {
		return err
	}
	ks := &keyState{name: k.Name, client: client, jobs: jobs, limit: k.EffectiveBudget(), weights: g.CollectorWeights,
		expiresAt: k.ExpiresAt.Time, org: b.org(statefiles.Fingerprint(b.secrets[k.Name].Reveal()), k.EffectiveBudget())}
	if other := b.plan.keyOf(ks.org); other != nil {
		return fmt.Errorf("holds the same API key as key %q; list it once and point both projects at it", other.name)
	}
	b.keys[k.Name] = ks
	b.plan.keys = append(b.plan.keys, ks)
	return nil
}

func (b *builder) project(pr config.Project) error {
	g := b.cfg.Global
	t := timing{
		minInterval:    time.Duration(g.MinRefreshInterval),
		maxInterval:    time.Duration(g.MaxRefreshInterval),
		maxAge:         time.Duration(g.MaxAge),
		refreshTimeout: refreshTimeout(time.Duration(g.MaxRefreshInterval)),
	}
	ks := b.keys[pr.KeyName(b.cfg)]
	label := cmp.Or(pr.Name, pr.ID)
	var windows []windowSpec
	for _, w := range pr.Windows {
		windows = append(windows, windowSpec{label: w.Label, duration: w.Duration})
	}
	allowed := pathAllowed(pr.PathAllowed)
	enabled := pr.Collectors
	if len(enabled) == 0 {
		enabled = b.e.opts.DefaultCollectors
	}
	for _, name := range enabled {
		k, ok := b.e.opts.Collectors.Lookup(name)
		if !ok {
			return fmt.Errorf("project %q: unknown collector %q", label, name)
		}
		if k.Fetched == nil {
			return fmt.Errorf("project %q: collector %q has no Fetched", label, name)
		}
		settings := spec.Settings{Keep: allowed, TopN: g.TopN(name), LookBack: g.LookBack(name), MaxPaths: pr.MaxPaths,
			PageSize: g.PageSize, Concurrency: g.PageConcurrency, MaxPages: g.MaxPages}
		id := unitID{project: pr.ID, collector: name}
		u := &unit{id: id, collector: k, project: label, settings: settings, windows: windowsOf(k, windows), key: ks, timing: t,
			log: b.e.log.With("project", label, "collector", name), state: b.state(id)}
		b.plan.units = append(b.plan.units, u)
		ks.units = append(ks.units, u)
	}
	b.plan.jobs = append(b.plan.jobs, b.e.newJobsUnit(b.cfg, pr, label, ks, t))
	return nil
}

// windowsOf: an additive collector counts the month to date, plus the config's rolling windows; one that is not
// (unique visitors) has the windows only, 24h by default; a month-only collector the month, a snapshot one window.
func windowsOf(k spec.Collector, windows []windowSpec) []windowSpec {
	switch k.Windows {
	case spec.WindowsOnly:
		if len(windows) == 0 {
			return []windowSpec{windowsOnlyDefault}
		}
		return windows
	case spec.MonthOnly:
		return []windowSpec{monthWindow}
	case spec.Snapshot:
		return []windowSpec{snapshotWindow}
	}
	return append([]windowSpec{monthWindow}, windows...)
}

// pathAllowed also refuses what cannot be a label value (mintlify.PathLabelOK); such rows count as dropped.
func pathAllowed(match func(path string) bool) func(path string) bool {
	return func(path string) bool { return mintlify.PathLabelOK(path) && (match == nil || match(path)) }
}

// adopt swaps in a plan built whole and retires states no config uses (retire.go). The caller holds storeMu.
func (e *Engine) adopt(b *builder) {
	p := b.plan
	maps.Copy(e.orgs, b.orgs)
	for _, ks := range p.keys {
		ks.org.budget.SetLimit(ks.limit)
	}
	maps.Copy(e.states, b.states)
	live := map[unitID]bool{}
	for _, u := range p.units {
		live[u.id] = true
		u.state.mu.Lock()
		u.state.use()
		if r := u.state.health.LastReason; r == mintlify.ReasonUnauthorized || r == mintlify.ReasonForbidden {
			// A refused key's fix is a new key and a reload: try at once, not after the long auth back-off.
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

// jobPollRate: the API documents no limit for reading jobs, and polls do not spend the analytics budget;
// one call a second (bursts of 5) per project keeps a long job list from hammering it all the same.
const (
	jobPollRate  = rate.Limit(1)
	jobPollBurst = 5
)

// jobLimiter is the same across reloads, so a reload cannot reset it.
func (e *Engine) jobLimiter(projectID string) *rate.Limiter {
	e.limMu.Lock()
	defer e.limMu.Unlock()
	l, ok := e.limiters[projectID]
	if !ok {
		l = rate.NewLimiter(jobPollRate, jobPollBurst)
		e.limiters[projectID] = l
	}
	return l
}

// refreshTimeout keeps a hung upstream from holding a singleflight slot for ever.
func refreshTimeout(maxInterval time.Duration) time.Duration {
	return min(max(maxInterval/2, time.Minute), 10*time.Minute)
}

// Refresh starts each key's scheduler and each due job poll, and waits for them until ctx ends (the
// scrape's deadline); they go on in the background, shared by concurrent callers.
func (e *Engine) Refresh(ctx context.Context) {
	p := e.current()
	now := e.clock.Now()
	if e.ctx.Err() != nil {
		return
	}
	// Wait only when there is nothing to show without it and the refresh may still end within the scrape: once
	// a refresh has run longer than a scrape, the next scrapes answer at once (from the cache, or up = 0).
	patience := time.Duration(math.MaxInt64)
	if d, ok := ctx.Deadline(); ok {
		patience = time.Until(d)
	}
	worthWaiting := func(hasData bool, started time.Time) bool {
		return !hasData && time.Since(started) < patience
	}
	var waits []<-chan struct{}
	for _, k := range p.keys {
		due := slices.DeleteFunc(slices.Clone(k.units), func(u *unit) bool { return now.Before(u.dueAt()) })
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
			if run, started := e.startJobs(j); worthWaiting(j.hasData(), started) {
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

// Wait blocks until no refresh runs, so tests reach a known state without sleeping.
func (e *Engine) Wait() { e.wg.Wait() }

// Close stops running refreshes, waits for them, saves the state and closes idle connections.
func (e *Engine) Close() {
	e.closeOnce.Do(func() {
		e.cancel()
		e.wg.Wait()
		e.save()
		e.closeState()
		e.opts.HTTPClient.CloseIdleConnections()
	})
}
