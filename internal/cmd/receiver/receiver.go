// Package receiver is `mintlify_exporter receiver`: an Alertmanager webhook that turns a documentation-gap
// alert into one Mintlify action (an automation run or an agent job), safely and at most once. See docs/loop.md.
package receiver

import (
	"cmp"
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
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/common/version"
	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/trackfile"
)

const cmdName = cli.Name + " receiver"

// DefaultListenAddress is the receiver's port, next to the exporter's.
const DefaultListenAddress = ":10492"

// DefaultAnswerTimeout stays below Alertmanager's default 10 s webhook timeout, so it reads our answer.
const DefaultAnswerTimeout = 8 * time.Second

// WebhookPath is where Alertmanager posts.
const WebhookPath = "/webhook"

type flags struct {
	common        cli.Flags
	web           *cli.Web
	act           bool
	configCheck   bool
	tokenFile     string
	answerTimeout time.Duration
	maxBody       int64
	auditPath     string
	auditMax      int64
	auditKeep     int
	trackFile     string
	followEvery   time.Duration
	trustNetwork  bool
	logConfig     *promslog.Config
}

func newApp(f *flags) *kingpin.Application {
	app := kingpin.New(cmdName, "Alertmanager webhook receiver: turns a documentation-gap alert into one Mintlify action (an automation run or an agent job), "+
		"at most once per route and alert group, under a cooldown and a daily cap. It only logs and records what it would do until --receiver.act (or act: true in the routes file) is given. See docs/loop.md.\n\n"+
		"The admin API key (write scope) is read from --mintlify.api-key-file or the "+cli.KeyEnv+" environment variable, never from a flag value; give the receiver a key of its own, so that the exporter's can stay read-only.\n\n"+
		"Exit status: 0 after SIGTERM or SIGINT (or a valid --config.check); 1 a start-up error; 2 a bad command line.")
	app.Version(version.Print(cmdName))
	app.HelpFlag.Short('h')
	f.web = cli.AddWebFlags(app, DefaultListenAddress, "64", "10s")
	f.common.AddConfigFile(app, "The routes file (YAML): which alert starts which action. Required.")
	app.Flag("config.check", "Check the routes file and its prompt templates, print the problems or that it is valid, and exit (0 if valid, 1 if not).").BoolVar(&f.configCheck)
	app.Flag("storage.path", "State file: what the receiver did, per route and alert group, its cooldowns and daily counts. Never the exporter's own state file.").
		Default(filepath.Join(filepath.Dir(cli.DefaultStoragePath(os.Getenv)), "receiver-state.json")).StringVar(&f.common.StoragePath)
	app.Flag("receiver.act", "Act on Mintlify. Without it (and without act: true in the routes file) the receiver only logs and records what it would do.").BoolVar(&f.act)
	app.Flag("receiver.bearer-token-file", "File holding the token Alertmanager must send as 'Authorization: Bearer' (its http_config.authorization.credentials_file). A request without it gets 401 before its body is read.").PlaceHolder("FILE").StringVar(&f.tokenFile)
	app.Flag("receiver.answer-timeout", "Maximum time to handle a notification, Mintlify's answer included; keep it below Alertmanager's webhook timeout (10s by default).").Default(DefaultAnswerTimeout.String()).DurationVar(&f.answerTimeout)
	app.Flag("receiver.max-body-bytes", "Largest notification accepted; a larger one gets 413.").Default(fmt.Sprint(DefaultMaxBodyBytes)).Int64Var(&f.maxBody)
	app.Flag("receiver.audit-log", "Audit log: one JSON line per decision. Default: receiver-audit.jsonl beside the state file.").PlaceHolder("FILE").StringVar(&f.auditPath)
	app.Flag("receiver.audit-max-bytes", "Size past which the audit log is rotated.").Default(fmt.Sprint(16 << 20)).Int64Var(&f.auditMax)
	app.Flag("receiver.audit-keep", "Rotated audit logs kept (FILE.1 … FILE.N).").Default("5").IntVar(&f.auditKeep)
	app.Flag("receiver.tracked-jobs-file", "Append each job the receiver starts to this tracked-jobs file (the exporter's --mintlify.tracked-jobs-file), so that /metrics shows its status and pull request.").PlaceHolder("FILE").StringVar(&f.trackFile)
	app.Flag("receiver.follow-interval", "How often to read the jobs the receiver started (at most 20 a round, each for up to 7 days) until each opens its pull request, whose link then goes into the audit log; 0 to never.").Default("5m").DurationVar(&f.followEvery)
	app.Flag("receiver.trust-network", "Act without --receiver.bearer-token-file and without basic auth in --web.config.file: only for a port that nothing but Alertmanager can reach. Without it, acting without authentication is refused at start.").BoolVar(&f.trustNetwork)
	f.common.AddKeyFile(app, "A write-scoped key; needed only with --receiver.act.")
	f.common.AddAPIURL(app, "")
	f.common.AddRequestTimeout(app, "Never longer than --receiver.answer-timeout less one second.")
	f.logConfig = &promslog.Config{}
	flag.AddFlags(app, f.logConfig)
	return app
}

// Options are the tests' hooks; the zero value is production.
type Options struct {
	Now    func() time.Time
	Getenv func(string) string
}

// Run runs the receiver until SIGINT or SIGTERM and returns its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdout, stderr, nil, Options{})
}

func parse(args []string, stdout, stderr io.Writer) (*flags, int, bool) {
	f := &flags{}
	if _, code, done := cli.Parse(newApp(f), args, stdout, stderr, cmdName, cli.ExitUsage); done {
		return nil, code, true
	}
	var err error
	switch {
	case f.common.ConfigFile == "":
		err = errors.New("--config.file (the routes file) is required")
	case f.web.Check() != nil:
		err = f.web.Check()
	case f.answerTimeout < 2*time.Second || f.answerTimeout > time.Minute:
		err = fmt.Errorf("--receiver.answer-timeout must be 2s to 1m, got %s", f.answerTimeout)
	case f.maxBody < 1024 || f.maxBody > 64<<20:
		err = errors.New("--receiver.max-body-bytes must be 1024 to 67108864")
	case f.auditMax < 4096 || f.auditKeep < 0 || f.auditKeep > 100:
		err = errors.New("--receiver.audit-max-bytes must be at least 4096, --receiver.audit-keep 0 to 100")
	case f.followEvery < 0 || (f.followEvery > 0 && f.followEvery < 10*time.Second):
		err = errors.New("--receiver.follow-interval must be 0 or at least 10s")
	case f.common.StoragePath == "":
		err = errors.New("--storage.path must not be empty: the state is what keeps actions to one")
	}
	err = cmp.Or(err, cli.CheckAPIURL(f.common.APIURL), cli.CheckRequestTimeout(f.common.RequestTimeout))
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmdName, err)
		return nil, cli.ExitUsage, true
	}
	if f.auditPath == "" {
		f.auditPath = filepath.Join(filepath.Dir(f.common.StoragePath), "receiver-audit.jsonl")
	}
	return f, 0, false
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, l net.Listener, o Options) int {
	if l != nil {
		defer l.Close()
	}
	f, code, done := parse(args, stdout, stderr)
	if done {
		return code
	}
	cfg, err := LoadConfig(f.common.ConfigFile)
	if f.configCheck {
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmdName, err)
			return cli.ExitError
		}
		fmt.Fprintf(stdout, "%s: %s is valid: %d routes\n", cmdName, f.common.ConfigFile, len(cfg.Routes))
		return cli.ExitOK
	}
	f.logConfig.Writer = stderr
	logger := promslog.New(f.logConfig)
	logger.Info("Starting "+cmdName, "version", version.Info())
	if err != nil {
		logger.Error("Cannot start", "err", err)
		return cli.ExitError
	}
	rc, reg, err := newReceiver(f, cfg, logger, o)
	if err != nil {
		logger.Error("Cannot start", "err", err)
		return cli.ExitError
	}
	defer rc.close()
	return serve(ctx, rc, reg, f, logger, l)
}

func newReceiver(f *flags, cfg *Config, logger *slog.Logger, o Options) (*receiver, *prometheus.Registry, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if f.trackFile != "" {
		if err := trackfile.CheckPath(f.trackFile); err != nil {
			return nil, nil, fmt.Errorf("--receiver.tracked-jobs-file %s: %w", f.trackFile, err)
		}
	}
	rc := &receiver{cfg: cfg, act: f.act || cfg.Act, now: o.Now, log: logger, trackFile: f.trackFile,
		answerTimeout: f.answerTimeout, maxBody: f.maxBody}
	if err := rc.authenticate(f); err != nil {
		return nil, nil, err
	}
	if rc.act {
		key, err := cli.ReadKey(f.common.KeyFile, o.Getenv)
		if err != nil {
			return nil, nil, err
		}
		// No retries: a create that may have reached Mintlify is never sent twice.
		c, _, err := cli.NewClient(f.common.APIURL, key, min(f.common.RequestTimeout, f.answerTimeout-time.Second), -1)
		if err != nil {
			return nil, nil, err
		}
		rc.client = c
	} else {
		logger.Warn("DRY RUN: nothing is sent to Mintlify; give --receiver.act to act")
	}
	st, err := openStore(f.common.StoragePath, f.auditPath, rc.now(), cfg.Routes)
	if err != nil {
		return nil, nil, err
	}
	if st.lost != "" {
		logger.Error("The state could not be used; every route starts its cooldown now", "reason", st.lost, "moved_to", st.aside)
	}
	rc.st = st
	if rc.audit, err = openAudit(f.auditPath, f.auditMax, f.auditKeep); err != nil {
		st.close()
		return nil, nil, err
	}
	reg := prometheus.NewRegistry()
	rc.m = newMetrics(reg, cfg, rc.act)
	rc.reloads = cli.NewReloads(reg, "mintlify_receiver", "the routes file", rc.now())
	reg.MustRegister(newStateCollector(rc), versioncollector.NewCollector("mintlify_receiver"),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	rc.reportUnknown()
	return rc, reg, nil
}

// authenticate reads the bearer token, and refuses to act with no way to tell Alertmanager from anyone else.
func (rc *receiver) authenticate(f *flags) error {
	if f.tokenFile != "" {
		b, err := safefile.Read(f.tokenFile, "bearer token file", 4096)
		if err != nil {
			return err
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return fmt.Errorf("--receiver.bearer-token-file %s is empty", f.tokenFile)
		}
		s := secret.New(tok)
		rc.token = &s
		return nil
	}
	basic, err := basicAuthConfigured(*f.web.WebConfigFile)
	switch {
	case err != nil:
		return err
	case basic:
	case rc.act && !f.trustNetwork:
		return errors.New("--receiver.act (or act: true in the routes file) needs authentication: --receiver.bearer-token-file, or a --web.config.file with basic_auth_users; " +
			"give --receiver.trust-network if nothing but Alertmanager can reach the port")
	default:
		rc.log.Warn("No --receiver.bearer-token-file and no basic auth in --web.config.file: anyone who can reach the port can send notifications")
	}
	return nil
}

func basicAuthConfigured(path string) (bool, error) {
	if path == "" {
		return false, nil
	}
	b, err := safefile.Read(path, "--web.config.file", 1<<20)
	if err != nil {
		return false, err
	}
	var c struct {
		Users map[string]string `yaml:"basic_auth_users"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return false, fmt.Errorf("--web.config.file %s: %w", path, err)
	}
	return len(c.Users) > 0, nil
}

// reportUnknown reports once, never retries, the intents a stop left unanswered: Mintlify may have acted.
func (rc *receiver) reportUnknown() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	lost := rc.st.d.unknownIntents()
	for _, g := range lost {
		rec := &auditRecord{Time: rc.now().UTC(), Route: g.Route, GroupKey: "sha256:" + g.Group, Fingerprints: []string{}, Action: "removed_route",
			Outcome: OutcomeUnknown, Reason: "the receiver stopped between the intent and the outcome: Mintlify may have acted; not tried again"}
		for _, r := range rc.cfg.Routes {
			if r.Name == g.Route {
				rec.Project, rec.Action = r.Action.Project, r.Action.Kind
			}
		}
		rc.finish(rec)
	}
	if len(lost) > 0 {
		rc.save()
	}
}

// reload keeps the running routes on any error; acting cannot change, as the key is read at start only.
func (rc *receiver) reload(path string, actFlag bool) error {
	cfg, err := LoadConfig(path)
	if err == nil && (actFlag || cfg.Act) != rc.act {
		err = fmt.Errorf("act would change to %t: restart the receiver to change acting", !rc.act)
	}
	rc.reloads.Done(err, rc.now())
	if err != nil {
		rc.log.Error("Reloading the routes file failed; keeping the running routes", "file", path, "err", err)
		return err
	}
	rc.mu.Lock()
	rc.cfg = cfg
	rc.m.addRoutes(cfg)
	rc.mu.Unlock()
	rc.log.Info("Routes file reloaded", "file", path, "routes", len(cfg.Routes))
	return nil
}

func (rc *receiver) close() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	_ = rc.audit.close()
	rc.st.close()
}

func handler(rc *receiver, reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(WebhookPath, rc)
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, MaxRequestsInFlight: 10}))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "Healthy") })
	return mux
}

// serve lets a decision in progress finish on shutdown; each is bounded by the answer timeout.
func serve(ctx context.Context, rc *receiver, reg *prometheus.Registry, f *flags, logger *slog.Logger, l net.Listener) int {
	var wg sync.WaitGroup
	defer wg.Wait()
	fctx, stopFollowing := context.WithCancel(ctx)
	defer stopFollowing()
	wg.Go(func() { cli.OnSIGHUP(fctx, func() { _ = rc.reload(f.common.ConfigFile, f.act) }) })
	if f.followEvery > 0 && rc.client != nil {
		wg.Go(func() {
			t := time.NewTicker(f.followEvery)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					rc.follow(fctx)
				case <-fctx.Done():
					return
				}
			}
		})
	}
	// Idle keep-alive connections are closed to admit new ones, so a flood cannot keep Alertmanager out.
	return f.web.Serve(ctx, &http.Server{Handler: handler(rc, reg), ReadHeaderTimeout: 5 * time.Second, MaxHeaderBytes: 64 << 10},
		l, f.answerTimeout+time.Second, logger)
}
