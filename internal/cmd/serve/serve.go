// Package serve is the exporter command: its flags, the configuration source, the HTTP server and --config.check.
package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

const exporterName = cli.Name

// DefaultListenAddress sits just past the used-up exporter range 9100-9999 of Prometheus' port allocations.
const DefaultListenAddress = ":10491"

type flags struct {
	web             *cli.Web
	metricsPath     string
	disableSelf     bool
	enablePprof     bool
	maxRequests     int
	timeoutOffset   time.Duration
	defaultTimeout  time.Duration
	common          cli.Flags
	configCheck     bool
	checkOnline     bool
	windows         []string
	demo            bool
	logConfig       *promslog.Config
	trackedJobsFile string
	keyExpiresAt    string             // --mintlify.api-key-expires-at
	collectors      map[string]*bool   // --[no-]collector.NAME
	topN            map[string]*string // --collector.NAME.top-n, parsed with its range check
	lookBack        map[string]*string // --collector.NAME.look-back
}

const appHelp = `Prometheus exporter for Mintlify documentation analytics (page views, human vs AI, the assistant's unanswered questions) and agent jobs.

Commands (each has its own --help):
  mintlify_exporter           serve /metrics (this command)
  mintlify_exporter jobs      create, message and watch agent jobs
  mintlify_exporter backfill  load past days into Prometheus
  mintlify_exporter receiver  act once on a documentation-gap alert (an Alertmanager webhook)`

func newApp(f *flags) *kingpin.Application {
	app := kingpin.New(exporterName, appHelp)
	app.Version(version.Print(exporterName))
	app.HelpFlag.Short('h')
	f.web = cli.AddWebFlags(app, DefaultListenAddress, "512", "30s")
	app.Flag("web.telemetry-path", "Path under which to expose metrics: an absolute URL path, not / (the landing page) and not under /-/ or /debug/pprof/.").Default("/metrics").StringVar(&f.metricsPath)
	app.Flag("web.disable-exporter-metrics", "Exclude the exporter's own Go, process and promhttp metrics from /metrics.").BoolVar(&f.disableSelf)
	app.Flag("web.enable-pprof", "Serve Go runtime profiles under /debug/pprof/ (and link them from the landing page).").BoolVar(&f.enablePprof)
	app.Flag("web.max-requests", "Maximum number of parallel scrapes, 0 to 10000; 0 means no limit.").Default("40").IntVar(&f.maxRequests)
	app.Flag("web.scrape-timeout-offset", "Subtracted from Prometheus' X-Prometheus-Scrape-Timeout-Seconds to get the time a scrape may wait for a refresh, 0s to 1h.").Default("500ms").DurationVar(&f.timeoutOffset)
	app.Flag("web.default-scrape-timeout", "Scrape timeout assumed when the request does not carry X-Prometheus-Scrape-Timeout-Seconds, at least 1s and at most 1h.").Default("10s").DurationVar(&f.defaultTimeout)
	f.common.AddConfigFile(app, "YAML configuration file (several projects, keys, budgets). Without it, the --mintlify.* flags describe one project.")
	app.Flag("config.check", "Check the configuration (and that the API keys can be read and are admin keys), print the problems or that it is valid, and exit (status 0 if valid, 1 if not). The API is not contacted.").BoolVar(&f.configCheck)
	app.Flag("config.check-online", "Like --config.check, and also ask the API whether each project's key is accepted: one agent-job read per project (a job id that does not exist), nothing from the hourly analytics budget.").BoolVar(&f.checkOnline)
	f.common.AddProjectID(app, "Without --config.file.")
	f.common.AddKeyFile(app, "Without --config.file.")
	f.common.AddAPIURL(app, "Without --config.file.")
	f.common.AddRequestTimeout(app, "Without --config.file; the file's global request_timeout otherwise.")
	app.Flag("mintlify.window", "Rolling window exported as gauges on top of the month-to-date counters, e.g. 24h or 7d; repeat for several (without --config.file). None by default.").PlaceHolder("WINDOW").StringsVar(&f.windows)
	app.Flag(expiresAtFlag, "Day the API key expires, YYYY-MM-DD, from the API keys page of the Mintlify dashboard (the API never tells it): exported for the expiry alert, warned of by --config.check (without --config.file; the file's expires_at otherwise).").PlaceHolder("DATE").StringVar(&f.keyExpiresAt)
	app.Flag("mintlify.tracked-jobs-file", "File of agent job ids to follow, one per line, as 'mintlify_exporter jobs create --track' writes it (without --config.file).").PlaceHolder("FILE").StringVar(&f.trackedJobsFile)
	f.collectors = map[string]*bool{}
	for _, k := range collector.All {
		def, onOff := "false", "off"
		if k.Default {
			def, onOff = "true", "on"
		}
		f.collectors[k.Name] = app.Flag("collector."+k.Name, "Enable the "+k.Name+" collector (default: "+onOff+"): "+k.Summary+". Every analytics collector shares the hourly budget; a project's `collectors` list in the config file overrides these flags.").Default(def).Bool()
	}
	f.topN, f.lookBack = map[string]*string{}, map[string]*string{}
	for _, k := range collector.All {
		if k.TopN > 0 {
			f.topN[k.Name] = app.Flag(k.Flag(spec.TopNSetting), fmt.Sprintf("Length of the %s collector's top lists, 1 to %d (without --config.file; the file's global %s otherwise).", k.Name, config.MaxTopN, k.Key(spec.TopNSetting))).Default(strconv.Itoa(k.TopN)).String()
		}
		if k.LookBack > 0 {
			f.lookBack[k.Name] = app.Flag(k.Flag(spec.LookBackSetting), fmt.Sprintf("How far back the %s collector looks, %s to %s (without --config.file; the file's global %s otherwise).", k.Name, config.MinLookBack, config.MaxLookBack, k.Key(spec.LookBackSetting))).Default(config.Duration(k.LookBack).String()).String()
		}
	}
	f.common.AddStoragePath(app, "State file: the analytics budget spent in the last hour (per key fingerprint, never the key), each collector's schedule and its last good data, so that a restart serves data at once and spends nothing extra. Empty to keep no state.")
	app.Flag("demo", "Serve data from a built-in simulated Mintlify API with a synthetic site and agent jobs; no account needed.").BoolVar(&f.demo)
	f.logConfig = &promslog.Config{}
	flag.AddFlags(app, f.logConfig)
	return app
}

// Run runs the exporter until SIGINT or SIGTERM and returns its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr, nil)
}

// serve listens on l when not nil, which tests open on 127.0.0.1:0 so no other process can take the port.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, l net.Listener) int {
	if l != nil {
		defer l.Close()
	}
	var f flags
	app := newApp(&f)
	if _, code, done := cli.Parse(app, args, stdout, stderr, exporterName, cli.ExitUsage); done {
		return code
	}
	if err := checkWebFlags(&f); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", exporterName, err)
		return cli.ExitUsage
	}
	if f.configCheck || f.checkOnline {
		return checkConfig(ctx, &f, stdout, stderr)
	}
	f.logConfig.Writer = stderr
	logger := promslog.New(f.logConfig)
	logger.Info("Starting "+exporterName, "version", version.Info())
	logger.Info("Build context", "build_context", version.BuildContext())

	inst, err := New(ctx, args, Options{Logger: logger})
	if err != nil {
		logger.Error("Cannot start", "err", err)
		return cli.ExitError
	}
	defer inst.Close()
	srv := inst.s
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	wg.Go(func() { cli.OnSIGHUP(ctx, func() { _ = srv.reload() }) })
	// A first refresh right away, so the first scrape finds data.
	wg.Go(func() { srv.exporter.Refresh(ctx) })

	return f.web.Serve(ctx, &http.Server{Handler: inst.Handler(), ReadHeaderTimeout: 10 * time.Second}, l, 5*time.Second, logger)
}

const (
	maxMaxRequests   = 10_000    // --web.max-requests
	maxScrapeTimeout = time.Hour // --web.default-scrape-timeout and --web.scrape-timeout-offset
	// minDefaultScrapeTimeout: less leaves a scrape without the header no time for a refresh.
	minDefaultScrapeTimeout = time.Second
)

// checkWebFlags names the flag out of its bounds.
func checkWebFlags(f *flags) error {
	if err := f.web.Check(); err != nil {
		return err
	}
	switch {
	case f.maxRequests < 0 || f.maxRequests > maxMaxRequests:
		return fmt.Errorf("--web.max-requests must be between 0 (no limit) and %d, got %d", maxMaxRequests, f.maxRequests)
	case f.defaultTimeout < minDefaultScrapeTimeout || f.defaultTimeout > maxScrapeTimeout:
		return fmt.Errorf("--web.default-scrape-timeout must be at least %s and at most %s, got %s", minDefaultScrapeTimeout, maxScrapeTimeout, f.defaultTimeout)
	case f.timeoutOffset < 0 || f.timeoutOffset > maxScrapeTimeout:
		return fmt.Errorf("--web.scrape-timeout-offset must be between 0s and %s, got %s", maxScrapeTimeout, f.timeoutOffset)
	}
	return checkTelemetryPath(f.metricsPath)
}

// checkTelemetryPath refuses a path that is not plain, or one of the exporter's own endpoints.
func checkTelemetryPath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "{}?# \t\r\n") || strings.Contains(p, "//") {
		return fmt.Errorf("--web.telemetry-path must be an absolute URL path such as /metrics (no spaces, {}, ?, # or //), got %q", p)
	}
	if p == "/" {
		return fmt.Errorf("--web.telemetry-path must not be /, the landing page's, got %q", p)
	}
	for _, own := range []string{"/-/", "/debug/pprof/"} {
		if strings.HasPrefix(p+"/", own) {
			return fmt.Errorf("--web.telemetry-path must not be under %s, the exporter's own endpoints, got %q", own, p)
		}
	}
	return nil
}

var quiet = slog.New(slog.DiscardHandler)
