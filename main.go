// Command mintlify_exporter exports Mintlify documentation analytics and
// agent-job state as Prometheus metrics.
//
// A scrape goes main.go (handler, deadline) → collector (cache, budget) →
// internal/mintlify (HTTP).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

const exporterName = "mintlify_exporter"

// defaultListenAddress: the exporter port range 9100-9999 of the
// Prometheus default port allocations is used up, so this port sits just
// past it.
const defaultListenAddress = ":10491"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// flags is everything the command line sets for the exporter.
type flags struct {
	web             *web.FlagConfig
	metricsPath     string
	disableSelf     bool
	enablePprof     bool
	maxRequests     int
	timeoutOffset   time.Duration
	defaultTimeout  time.Duration
	configFile      string
	configCheck     bool
	checkOnline     bool
	projectID       string
	apiKeyFile      string
	apiURL          string
	windows         []string
	demo            bool
	logConfig       *promslog.Config
	trackedJobsFile string
	collectors      map[string]*bool // --[no-]collector.NAME
	storagePath     string
}

// defaultStoragePath is where the state file goes unless --storage.path
// says otherwise: under systemd's StateDirectory= when the unit sets one,
// else in data/ below the working directory.
func defaultStoragePath(getenv func(string) string) string {
	if dirs := getenv("STATE_DIRECTORY"); dirs != "" {
		dir, _, _ := strings.Cut(dirs, ":")
		return filepath.Join(dir, "state.json")
	}
	return filepath.Join("data", "state.json")
}

func newApp(f *flags) *kingpin.Application {
	app := kingpin.New(exporterName, "Prometheus exporter for Mintlify documentation analytics (page views, human vs AI) and agent jobs.\n\nRun 'mintlify_exporter jobs --help' for the command that creates, messages and watches agent jobs, and 'mintlify_exporter backfill --help' for the one that loads past days into Prometheus.")
	app.Version(version.Print(exporterName))
	app.HelpFlag.Short('h')
	f.web = kingpinflag.AddFlags(app, defaultListenAddress)
	app.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&f.metricsPath)
	app.Flag("web.disable-exporter-metrics", "Exclude the exporter's own Go, process and promhttp metrics from /metrics.").BoolVar(&f.disableSelf)
	app.Flag("web.enable-pprof", "Serve Go runtime profiles under /debug/pprof/ (and link them from the landing page).").BoolVar(&f.enablePprof)
	app.Flag("web.max-requests", "Maximum number of parallel scrapes; 0 means no limit.").Default("40").IntVar(&f.maxRequests)
	app.Flag("web.scrape-timeout-offset", "Subtracted from Prometheus' X-Prometheus-Scrape-Timeout-Seconds to get the time a scrape may wait for a refresh.").Default("500ms").DurationVar(&f.timeoutOffset)
	app.Flag("web.default-scrape-timeout", "Scrape timeout assumed when the request does not carry X-Prometheus-Scrape-Timeout-Seconds.").Default("10s").DurationVar(&f.defaultTimeout)
	app.Flag("config.file", "YAML configuration file (several projects, keys, budgets). Without it, the --mintlify.* flags describe one project.").PlaceHolder("FILE").StringVar(&f.configFile)
	app.Flag("config.check", "Check the configuration (and that the API keys can be read and are admin keys), print the problems or that it is valid, and exit (status 0 if valid, 1 if not). The API is not contacted.").BoolVar(&f.configCheck)
	app.Flag("config.check-online", "Like --config.check, and also ask the API whether each project's key is accepted: one agent-job read per project (a job id that does not exist), nothing from the hourly analytics budget.").BoolVar(&f.checkOnline)
	app.Flag("mintlify.project-id", "Project id (without --config.file).").PlaceHolder("ID").Envar("MINTLIFY_PROJECT_ID").StringVar(&f.projectID)
	app.Flag("mintlify.api-key-file", "File holding the admin API key (without --config.file). Otherwise the key is read from the MINTLIFY_API_KEY environment variable; it is never a flag value.").PlaceHolder("FILE").StringVar(&f.apiKeyFile)
	app.Flag("mintlify.api-url", "Base URL of the Mintlify API (without --config.file).").Default(mintlify.DefaultBaseURL).StringVar(&f.apiURL)
	app.Flag("mintlify.window", "Rolling window exported as gauges on top of the month-to-date counters, e.g. 24h or 7d; repeat for several (without --config.file). None by default.").PlaceHolder("WINDOW").StringsVar(&f.windows)
	app.Flag("mintlify.tracked-jobs-file", "File of agent job ids to follow, one per line, as 'mintlify_exporter jobs create --track' writes it (without --config.file).").PlaceHolder("FILE").StringVar(&f.trackedJobsFile)
	// node_exporter style: --collector.NAME / --no-collector.NAME.
	f.collectors = map[string]*bool{}
	for _, c := range []struct{ name, help, def string }{
		{"pageviews", "page views per path and site totals (human, ai)", "true"},
		{"visitors", "unique visitors per path and site", "false"},
		{"feedback", "thumbs up/down and code-snippet feedback per page", "false"},
		{"searches", "top search terms and their click-through ratio", "false"},
		{"assistant", "assistant queries by caller (web, api, other)", "false"},
	} {
		onOff := map[string]string{"true": "on", "false": "off"}[c.def]
		f.collectors[c.name] = app.Flag("collector."+c.name, "Enable the "+c.name+" collector (default: "+onOff+"): "+c.help+". Every analytics collector shares the hourly budget; a project's `collectors` list in the config file overrides these flags.").Default(c.def).Bool()
	}
	app.Flag("storage.path", "State file: the analytics budget spent in the last hour (per key fingerprint, never the key), each collector's schedule and its last good data, so that a restart serves data at once and spends nothing extra. Empty to keep no state.").Default(defaultStoragePath(os.Getenv)).StringVar(&f.storagePath)
	app.Flag("demo", "Serve data from a built-in simulated Mintlify API with a synthetic site and agent jobs; no account needed.").BoolVar(&f.demo)
	f.logConfig = &promslog.Config{}
	flag.AddFlags(app, f.logConfig)
	return app
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "jobs" {
		return runJobs(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "backfill" {
		return runBackfill(args[1:], stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr, nil)
}

// serve runs the exporter until ctx ends (SIGINT or SIGTERM in
// production), then shuts the HTTP server down and stops the refreshes.
// With l nil it listens where --web.listen-address (or systemd socket
// activation) says; otherwise it serves on l, which tests open on
// 127.0.0.1:0 so that no other process can take the port in between. serve
// closes l.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, l net.Listener) int {
	if l != nil {
		defer l.Close()
	}
	var f flags
	app := newApp(&f)
	app.UsageWriter(stdout)
	app.ErrorWriter(stderr)
	if _, err := app.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", exporterName, err)
		return 2
	}
	if f.configCheck || f.checkOnline {
		return checkConfig(ctx, &f, stdout, stderr)
	}
	f.logConfig.Writer = stderr
	logger := promslog.New(f.logConfig)
	logger.Info("Starting "+exporterName, "version", version.Info())
	logger.Info("Build context", "build_context", version.BuildContext())

	src, err := newConfigSource(ctx, &f, logger)
	if err != nil {
		logger.Error("Invalid configuration", "err", err)
		return 1
	}
	defer src.close()
	cfg, err := src.load()
	if err != nil {
		logger.Error("Invalid configuration", "err", err)
		return 1
	}
	srv, err := newServer(&f, cfg, src, logger, hooks{})
	if err != nil {
		logger.Error("Cannot start", "err", err)
		return 1
	}
	defer srv.close()
	// On every return, the error paths included, the goroutines below end
	// (cancel) and serve waits for them (wg) before the exporter closes.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	wg.Go(func() {
		for {
			select {
			case <-hup:
				_ = srv.reload()
			case <-ctx.Done():
				return
			}
		}
	})
	// A first refresh right away, so the first scrape finds data.
	wg.Go(func() { srv.exporter.Refresh(ctx) })

	httpSrv := &http.Server{Handler: srv.handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() {
		if l != nil {
			errc <- web.Serve(l, httpSrv, f.web, logger)
			return
		}
		errc <- web.ListenAndServe(httpSrv, f.web, logger)
	}()
	select {
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("HTTP server failed", "err", err)
			return 1
		}
	case <-ctx.Done():
		logger.Info("Shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := httpSrv.Shutdown(sctx); err != nil {
			logger.Error("HTTP server shutdown failed", "err", err)
		}
	}
	return 0
}

// quiet is a logger for code paths that must not log.
var quiet = slog.New(slog.DiscardHandler)
