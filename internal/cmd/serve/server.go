package serve

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/common/model"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/trackfile"
)

// configSource is where the configuration comes from (a file, the flags or the demo), at start and on reload.
type configSource struct {
	f      *flags
	getenv func(string) string
	demo   *demoAPI
	// loadHook replaces load's reading in tests (a load that hangs).
	loadHook func() (*config.Config, error)
}

func newConfigSource(ctx context.Context, f *flags, logger *slog.Logger, clock exporter.Clock) (*configSource, error) {
	s := &configSource{f: f, getenv: os.Getenv}
	if f.demo {
		if f.common.ConfigFile != "" {
			return nil, errors.New("--demo and --config.file cannot be used together")
		}
		d, err := startDemo(ctx, logger, f.trackedJobsFile, clock)
		if err != nil {
			return nil, fmt.Errorf("starting the demo API: %w", err)
		}
		s.demo = d
		s.getenv = d.getenv
	}
	return s, nil
}

func (s *configSource) close() {
	if s.demo != nil {
		s.demo.close()
	}
}

func (s *configSource) load() (*config.Config, error) {
	cfg, err := s.read()
	if err != nil || s.loadHook != nil {
		return cfg, err
	}
	if err := s.checkTrackedJobsFile(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (s *configSource) checkTrackedJobsFile(cfg *config.Config) error {
	p := cfg.Global.TrackedJobsFile
	if p == "" {
		return nil
	}
	if err := trackfile.CheckPath(p); err != nil {
		if s.f.common.ConfigFile != "" {
			return fmt.Errorf("%s: tracked_jobs_file %s: %w", s.f.common.ConfigFile, p, err)
		}
		return fmt.Errorf("--mintlify.tracked-jobs-file %s: %w", p, err)
	}
	return nil
}

func (s *configSource) read() (*config.Config, error) {
	switch {
	case s.loadHook != nil:
		return s.loadHook()
	case s.demo != nil:
		return s.demo.config()
	case s.f.common.ConfigFile != "":
		return config.LoadFile(s.f.common.ConfigFile)
	}
	if s.f.common.ProjectID == "" {
		return nil, errors.New("no project: set --mintlify.project-id (or MINTLIFY_PROJECT_ID), or use --config.file, or try --demo")
	}
	// Flags are checked here, so errors name the flags and variables the user set, not the file's settings.
	if err := cli.CheckProjectID(s.f.common.ProjectID); err != nil {
		return nil, err
	}
	if err := cli.CheckAPIURL(s.f.common.APIURL); err != nil {
		return nil, err
	}
	if err := cli.CheckRequestTimeout(s.f.common.RequestTimeout); err != nil {
		return nil, err
	}
	keyEnv := ""
	if s.f.common.KeyFile == "" {
		keyEnv = cli.KeyEnv
	}
	if _, err := cli.ReadKey(s.f.common.KeyFile, s.getenv); err != nil {
		return nil, err
	}
	cfg, err := config.Single(s.f.common.ProjectID, s.f.common.APIURL, keyEnv, s.f.common.KeyFile, flagNames())
	if err != nil {
		return nil, err
	}
	windows := make([]config.Window, 0, len(s.f.windows))
	for _, w := range s.f.windows {
		pw, err := config.ParseWindow(w)
		if err != nil {
			return nil, fmt.Errorf("--mintlify.window %q: %w", w, err)
		}
		windows = append(windows, pw)
	}
	cfg.Projects[0].Windows = windows
	cfg.Global.RequestTimeout = config.Duration(s.f.common.RequestTimeout)
	cfg.Global.TrackedJobsFile = s.f.trackedJobsFile
	if err := s.f.applyCollectorSettings(cfg); err != nil {
		return nil, err
	}
	if err := s.f.applyKeyExpiry(cfg); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// applyCollectorSettings sets the collectors' --collector.NAME.* flags given.
func (f *flags) applyCollectorSettings(cfg *config.Config) error {
	for _, k := range collector.All {
		if text, ok := f.topN[k.Name]; ok {
			// kingpin's Int goes through a float: 1e20 became MinInt64.
			n, err := strconv.Atoi(*text)
			if err != nil || n < 1 || n > config.MaxTopN {
				return fmt.Errorf("--%s must be between 1 and %d, got %s", k.Flag(spec.TopNSetting), config.MaxTopN, *text)
			}
			cfg.Global.SetTopN(k.Name, n)
		}
		if text, ok := f.lookBack[k.Name]; ok {
			d, err := model.ParseDuration(*text)
			if err != nil {
				return fmt.Errorf("--%s %q: %w", k.Flag(spec.LookBackSetting), *text, err)
			}
			cfg.Global.SetLookBack(k.Name, time.Duration(d))
		}
	}
	return nil
}

func flagNames() config.FlagNames {
	names := cli.FlagNames()
	names["projects[0].windows"] = "--mintlify.window"
	names["global.tracked_jobs_file"] = "--mintlify.tracked-jobs-file"
	for _, k := range collector.All {
		if k.TopN > 0 {
			names[config.SettingPath(k, spec.TopNSetting)] = "--" + k.Flag(spec.TopNSetting)
		}
		if k.LookBack > 0 {
			names[config.SettingPath(k, spec.LookBackSetting)] = "--" + k.Flag(spec.LookBackSetting)
		}
	}
	return names
}

// server is the running exporter: registries, collector, reload state.
type server struct {
	f        *flags
	src      *configSource
	log      *slog.Logger
	exporter *exporter.Exporter
	registry *prometheus.Registry // every live series: the exporter's health, budget, jobs and API requests; Go, process, promhttp
	data     *prometheus.Registry // the exporter's data series, for formats not rendered in advance
	render   *exposition.Renderer // the data series rendered for the text format

	reloadMu      sync.Mutex
	reloadTimeout time.Duration // 0: defaultReloadTimeout
	reloads       *cli.Reloads
}

func newServer(f *flags, cfg *config.Config, src *configSource, logger *slog.Logger, o Options) (*server, error) {
	s := &server{
		f: f, src: src, log: logger,
		registry: prometheus.NewRegistry(),
		data:     prometheus.NewRegistry(),
	}
	var enabled []string
	for _, name := range collector.Names() {
		if on := f.collectors[name]; on != nil && *on {
			enabled = append(enabled, name)
		}
	}
	if len(enabled) == 0 {
		return nil, errors.New("every analytics collector is disabled: enable at least one --collector.NAME")
	}
	statePath := f.common.StoragePath
	if src.demo != nil {
		// A ledger or data kept from an earlier demo would describe nothing the fresh simulated API knows.
		statePath = ""
	}
	exp, err := exporter.New(cfg, exporter.Options{Registerer: s.registry, Options: engine.Options{Collectors: collector.All,
		DefaultCollectors: enabled,
		ReadTrackedJobs:   trackfile.Read,
		Logger:            logger,
		Getenv:            src.getenv,
		UserAgent:         cli.UserAgent(),
		Clock:             o.Clock,
		RetryBase:         o.RetryBase,
		StoragePath:       statePath,
	}})
	if err != nil {
		return nil, err
	}
	s.exporter = exp
	s.render = exposition.NewRenderer(exp.Data(), exp.DataKey)
	s.registry.MustRegister(exp.Live(), versioncollector.NewCollector(exporterName))
	s.data.MustRegister(exp.Data())
	s.reloads = cli.NewReloads(s.registry, "mintlify_exporter", "the configuration", time.Now())
	if !f.disableSelf {
		s.registry.MustRegister(
			collectors.NewGoCollector(),
			collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		)
	}
	if src.demo != nil {
		listen := DefaultListenAddress
		if a := f.web.WebListenAddresses; a != nil && len(*a) > 0 {
			listen = (*a)[0]
		}
		logger.Warn("DEMO MODE: serving synthetic data from the built-in simulated Mintlify API",
			"simulated_api_url", demoAPIURL(listen), "simulated_api_key", demoAPIKey)
	}
	return s, nil
}

func (s *server) close() { s.exporter.Close() }

// defaultReloadTimeout bounds a whole reload's reading, so neither SIGHUP nor /-/reload hangs however many keys.
const defaultReloadTimeout = 15 * time.Second

// loadWithin drops a load given up on, so it is never applied; every read in it is bounded, so it ends.
func (s *server) loadWithin(d time.Duration) (*config.Config, map[string]secret.Secret, error) {
	type result struct {
		cfg  *config.Config
		keys map[string]secret.Secret
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		cfg, err := s.src.load()
		var keys map[string]secret.Secret
		if err == nil {
			// Keys are read under the deadline, so an unreadable key file refuses the reload.
			keys, err = cfg.ResolveKeys(s.src.getenv)
		}
		ch <- result{cfg, keys, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.cfg, r.keys, r.err
	case <-t.C:
		return nil, nil, fmt.Errorf("reading the configuration and key files did not finish within %s; reload refused", d)
	}
}

// reload keeps the running configuration on any error, a passed deadline included.
func (s *server) reload() error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	d := s.reloadTimeout
	if d <= 0 {
		d = defaultReloadTimeout
	}
	cfg, keys, err := s.loadWithin(d)
	if err == nil {
		err = s.exporter.ApplyKeys(cfg, keys)
	}
	s.reloads.Done(err, time.Now())
	if err != nil {
		s.log.Error("Reload failed; keeping the running configuration", "err", err)
		return err
	}
	s.log.Info("Configuration reloaded", "projects", len(cfg.Projects))
	return nil
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	metrics := s.metricsHandler()
	mux.Handle(s.f.metricsPath, s.scrape(metrics))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "Healthy")
	})
	mux.HandleFunc("/-/reload", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			w.Header().Set("Allow", "POST, PUT")
			http.Error(w, "This endpoint requires a POST request.", http.StatusMethodNotAllowed)
			return
		}
		if err := s.reload(); err != nil {
			http.Error(w, "reload failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "OK")
	})
	if s.src.demo != nil {
		mux.HandleFunc(demoPagePath+"fail-job", s.src.demo.failJob)
		mux.Handle(demoAPIPath+"/", s.src.demo.apiHandler())
		mux.HandleFunc(demoPagePath, s.src.demo.page(s.f.metricsPath))
	}
	if s.f.enablePprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.Handle("/", s.landing())
	return mux
}

// scrape waits for due refreshes as long as the scrape's own deadline allows, then serves the cache.
func (s *server) scrape(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		timeout := s.f.defaultTimeout
		if v := r.Header.Get("X-Prometheus-Scrape-Timeout-Seconds"); v != "" {
			if secs, err := strconv.ParseFloat(v, 64); err == nil && secs > 0 {
				timeout = time.Duration(secs * float64(time.Second))
			}
		}
		ctx, cancel := context.WithTimeout(r.Context(), max(timeout-s.f.timeoutOffset, 0))
		s.exporter.Refresh(ctx)
		cancel()
		next.ServeHTTP(w, r)
	})
}

// pageCSS wraps long commands inside the window instead of widening the page.
const pageCSS = `pre, code { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { background: #f4f4f4; padding: 0.5rem; }
main label { width: auto; margin-right: 1em; }`

const gapsHTML = `<h3>Documentation gaps</h3>
<p>With <code>--collector.conversations</code>, the assistant conversations left unanswered (not covered by the
documentation), by category and by the page they started on; with <code>--collector.feedback-backlog</code>, the
reader feedback still open and the age of the oldest entry. The alerts <code>MintlifyAssistantUnansweredShareHigh</code>
(more than a quarter of the last day's conversations unanswered) and <code>MintlifyFeedbackWaiting</code> (an entry
open for more than 14 days) watch them.</p>`

func (s *server) landing() http.Handler {
	desc := "Prometheus exporter for Mintlify documentation analytics and agent jobs."
	extra := ""
	links := []web.LandingLinks{
		{Address: s.f.metricsPath, Text: "Metrics"},
		{Address: "/-/healthy", Text: "Health"},
	}
	if s.src.demo != nil {
		desc = "DEMO MODE: the data below comes from a built-in simulated Mintlify API, not from a real account."
		extra = `<p><strong>Demo data.</strong> Every number is synthetic. Run without <code>--demo</code> and with a project id and API key for real data.</p>` +
			`<p>Simulated API: <code>` + demoAPIPath + `</code> on this port, API key <code>` + demoAPIKey + `</code>.</p>`
		links = append(links, web.LandingLinks{Address: demoPagePath, Text: "Demo",
			Description: "the simulated API (URL, key, jobs commands) and a form to make a job fail"})
	}
	if s.f.enablePprof {
		// The toolkit's profile link takes 60 seconds.
		links = append(links,
			web.LandingLinks{Address: "/debug/pprof/", Text: "Profiling", Description: "Go runtime profiles (pprof)"},
			web.LandingLinks{Address: "/debug/pprof/heap", Text: "Heap profile"})
	}
	lp, err := web.NewLandingPage(web.LandingConfig{
		Name:        exporterName,
		Description: html.EscapeString(desc),
		Version:     version.Info(),
		ExtraHTML:   extra + gapsHTML,
		ExtraCSS:    pageCSS,
		Links:       links,
		Profiling:   "false",
	})
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s: %s\n", exporterName, desc)
		})
	}
	return lp
}
