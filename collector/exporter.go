// Package collector turns Mintlify's analytics and agent jobs into
// Prometheus metrics. Refreshes are driven by scrapes but paced by the
// analytics budget; Collect only ever reads the cache.
package collector

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Clock tells the time; tests pass a fake one.
type Clock interface{ Now() time.Time }

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
	// Registerer receives the API request metrics; nil leaves them out.
	Registerer prometheus.Registerer
	// DefaultCollectors are the analytics collectors of projects whose
	// config lists none (the --collector.* flags); nil means pageviews.
	DefaultCollectors []string
	// ReadTrackedJobs reads the tracked-jobs file (global.tracked_jobs_file);
	// main passes trackfile.Read. Required when that setting is used.
	ReadTrackedJobs func(path string) ([]string, error)
}

// Exporter is a prometheus.Collector over every configured project.
type Exporter struct {
	opts    Options
	log     *slog.Logger
	clock   Clock
	api     *apiMetrics
	flights singleflight.Group

	ctx    context.Context // parent of every refresh; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	limMu    sync.Mutex
	limiters map[string]*rate.Limiter // per project id, for agent-job polls

	mu    sync.RWMutex
	keys  map[string]*keyState
	units []*unit
	pv    map[string]*pageViews // by unit id, for adopting caches on reload
	aj    map[string]*agentJobs // likewise
	pw    map[string]*perWindow // likewise
}

// New builds an exporter for cfg. It fails if a key cannot be read or is
// not an admin key.
func New(cfg *config.Config, o Options) (*Exporter, error) {
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
	e := &Exporter{opts: o, log: o.Logger, clock: o.Clock, api: newAPIMetrics()}
	if o.Registerer != nil {
		if err := o.Registerer.Register(e.api); err != nil {
			return nil, fmt.Errorf("registering API metrics: %w", err)
		}
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if err := e.Apply(cfg); err != nil {
		e.cancel()
		return nil, err
	}
	return e, nil
}

// Apply switches to cfg. It builds everything first and swaps only if all
// of it worked, so a bad reload leaves the running state untouched. Caches
// of windows that survive the change are kept, and so is each key's count
// of requests already made this hour.
func (e *Exporter) Apply(cfg *config.Config) error {
	secrets, err := cfg.ResolveKeys(e.getenv())
	if err != nil {
		return err
	}
	g := cfg.Global
	e.mu.RLock()
	oldKeys, oldPV, oldAJ, oldPW := e.keys, e.pv, e.aj, e.pw
	e.mu.RUnlock()

	keys := make(map[string]*keyState, len(cfg.Keys))
	for _, k := range cfg.Keys {
		client, err := mintlify.New(mintlify.Options{
			BaseURL:        g.APIURL,
			Key:            secrets[k.Name],
			UserAgent:      e.opts.UserAgent,
			HTTPClient:     e.opts.HTTPClient,
			RequestTimeout: time.Duration(g.RequestTimeout),
			RetryBase:      e.opts.RetryBase,
			Observer:       e.api.observe,
			Logger:         e.log.With("key", k.Name),
		})
		if err != nil {
			return fmt.Errorf("key %q: %w", k.Name, err)
		}
		ks := &keyState{name: k.Name, client: client, weights: g.CollectorWeights}
		if old, ok := oldKeys[k.Name]; ok {
			// Same organization budget: what was spent this hour stays spent.
			ks.budget = old.budget
			ks.budget.SetLimit(k.EffectiveBudget())
			ks.until = old.backoffUntil(e.clock.Now())
		} else {
			ks.budget = budget.New(k.EffectiveBudget(), e.clock)
		}
		keys[k.Name] = ks
	}

	t := timing{
		minInterval:    time.Duration(g.MinRefreshInterval),
		maxInterval:    time.Duration(g.MaxRefreshInterval),
		maxAge:         time.Duration(g.MaxAge),
		refreshTimeout: refreshTimeout(time.Duration(g.MaxRefreshInterval)),
	}
	var units []*unit
	pvs := make(map[string]*pageViews)
	ajs := make(map[string]*agentJobs)
	pws := make(map[string]*perWindow)
	for _, p := range cfg.Projects {
		ks := keys[p.KeyName(cfg)]
		label := p.Name
		if label == "" {
			label = p.ID
		}
		var windows []windowSpec
		for _, w := range p.Windows {
			windows = append(windows, windowSpec{label: w.Label, duration: w.Duration})
		}
		filter := pathFilter{include: p.IncludePaths, exclude: p.ExcludePaths, maxPaths: p.MaxPaths}
		enabled := p.Collectors
		if len(enabled) == 0 {
			enabled = e.defaultCollectors()
		}
		for _, name := range enabled {
			var src source
			switch name {
			case "pageviews", "visitors":
				pv := &pageViews{
					kind: mintlify.Views, project: label, id: p.ID, client: ks.client,
					opts:   sweepSettings{pageSize: g.PageSize, concurrency: g.PageConcurrency, maxPages: g.MaxPages, budgetLimit: ks.budget.Limit},
					filter: filter,
				}
				if name == "visitors" {
					pv.kind = mintlify.Visitors
				}
				for _, w := range windows {
					pv.windows = append(pv.windows, &windowCache{label: w.label, duration: w.duration})
				}
				pv.adopt(oldPV[label+"/"+name])
				pvs[label+"/"+name] = pv
				src = pv
			case "feedback", "searches", "assistant":
				var pw *perWindow
				switch name {
				case "feedback":
					pw = newFeedback(label, p.ID, ks.client, windows, filter)
				case "searches":
					pw = newSearches(label, p.ID, ks.client, windows, g.SearchTopN)
				default:
					pw = newAssistant(label, p.ID, ks.client, windows)
				}
				pw.adopt(oldPW[label+"/"+name])
				pws[label+"/"+name] = pw
				src = pw
			default:
				return fmt.Errorf("project %q: unknown collector %q", label, name)
			}
			u := newUnit(label, src, ks, t, e.log)
			if old := e.unitByID(u.id); old != nil {
				u.inherit(old)
			}
			units = append(units, u)
			ks.units = append(ks.units, u)
		}

		aj := &agentJobs{
			project: label, id: p.ID, client: ks.client,
			ids:         jobIDs(p.ID, p.Jobs, g.TrackedJobsFile, len(cfg.Projects) == 1, e.opts.ReadTrackedJobs),
			limiter:     e.jobLimiter(p.ID),
			concurrency: g.JobConcurrency,
			retention:   time.Duration(g.JobRetention),
			recheck404:  10 * time.Duration(g.JobPollInterval),
			log:         e.log.With("project", label, "collector", "agent_jobs"),
			jobs:        make(map[string]*trackedJob),
		}
		jt := t
		jt.fixedInterval = time.Duration(g.JobPollInterval)
		ju := newUnit(label, aj, nil, jt, e.log)
		aj.adopt(oldAJ[ju.id])
		if old := e.unitByID(ju.id); old != nil {
			ju.inherit(old)
		}
		ajs[ju.id] = aj
		units = append(units, ju)
	}

	e.mu.Lock()
	e.keys, e.units, e.pv, e.aj, e.pw = keys, units, pvs, ajs, pws
	e.mu.Unlock()
	return nil
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
func (e *Exporter) jobLimiter(projectID string) *rate.Limiter {
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

func (e *Exporter) defaultCollectors() []string {
	if len(e.opts.DefaultCollectors) == 0 {
		return []string{"pageviews"}
	}
	return e.opts.DefaultCollectors
}

func (e *Exporter) getenv() func(string) string {
	if e.opts.Getenv != nil {
		return e.opts.Getenv
	}
	return osGetenv
}

func (e *Exporter) unitByID(id string) *unit {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, u := range e.units {
		if u.id == id {
			return u
		}
	}
	return nil
}

// Refresh starts the refresh of every unit that is due and waits for them
// until ctx ends (the scrape's deadline). Refreshes go on after that in the
// background; concurrent callers share one refresh per unit.
func (e *Exporter) Refresh(ctx context.Context) {
	e.mu.RLock()
	units := slices.Clone(e.units)
	e.mu.RUnlock()
	now := e.clock.Now()
	var waits []<-chan struct{}
	for _, u := range units {
		if !u.due(now) || e.ctx.Err() != nil {
			continue
		}
		waits = append(waits, e.start(u))
	}
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return
		}
	}
}

// start joins or begins u's refresh and returns a channel closed when it
// ends. Every caller adds to the wait group and leaves it when the flight
// lands, so Close waits for refreshes that no scrape waits for any more.
func (e *Exporter) start(u *unit) <-chan struct{} {
	e.wg.Add(1)
	res := e.flights.DoChan(u.id, func() (any, error) {
		u.run(e.ctx, e.clock)
		return nil, nil
	})
	done := make(chan struct{})
	go func() {
		<-res
		close(done)
		e.wg.Done()
	}()
	return done
}

// Wait blocks until no refresh is running. Tests use it to reach a known
// state without sleeping.
func (e *Exporter) Wait() { e.wg.Wait() }

// Close stops running refreshes, waits for them and closes idle
// connections to the API.
func (e *Exporter) Close() {
	e.cancel()
	e.wg.Wait()
	e.opts.HTTPClient.CloseIdleConnections()
}

// Describe sends every descriptor the exporter can emit.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect emits the cache. It does no I/O.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.RLock()
	units := e.units
	keys := make([]*keyState, 0, len(e.keys))
	for _, k := range e.keys {
		keys = append(keys, k)
	}
	e.mu.RUnlock()
	now := e.clock.Now()
	for _, u := range units {
		u.collect(ch, now)
	}
	for _, k := range keys {
		k.collect(ch, now)
	}
}
