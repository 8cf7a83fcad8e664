// Package backfill is the backfill command: past days' month-to-date counters as timestamped OpenMetrics
// text for `promtool tsdb create-blocks-from openmetrics`, resumable from a journal.
package backfill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

const (
	backfillCmdName = cli.Name + " backfill"
	// maxRateLimitWaits: the 429 answers in a row sat out before giving up (resumably).
	maxRateLimitWaits    = 5
	defaultRateLimitWait = time.Minute
)

// backfillEnv lets tests replace the clock and sleep, so pacing needs no real waiting.
type backfillEnv struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
	// afterPage runs after the n-th page of this run (from 1) is in the journal.
	afterPage func(n int)
	// tty: progress is one bar redrawn in place rather than a line per day.
	tty, barShown bool
}

// Run runs the backfill command with args (after "backfill") and returns its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal ends the run at its next step (resumably); a second, the default action back, ends the process.
	context.AfterFunc(ctx, stop)
	env := &backfillEnv{stdout: stdout, stderr: stderr, getenv: os.Getenv, now: time.Now, sleep: cli.SleepContext}
	if f, ok := stderr.(*os.File); ok {
		fi, err := f.Stat()
		env.tty = err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
	return env.run(ctx, args)
}

type backfillOptions struct {
	cli.Flags
	from, to     string
	projectNames []string
	paths        int
	pathsSet     bool
	siteOnly     bool
	labels       []string
	output       string
	force        bool
	yes          bool
	budget       int
	budgetSet    bool             // set on the command line, not defaulted
	collectors   map[string]*bool // --collector.feedback etc.
}

func collectorFlags() string {
	s := "--collector." + strings.Join(extraCollectors, ", --collector.")
	if i := strings.LastIndex(s, ", "); i >= 0 {
		s = s[:i] + " and " + s[i+len(", "):]
	}
	return s
}

func newBackfillApp(o *backfillOptions) (*kingpin.Application, *bool) {
	app := kingpin.New(backfillCmdName, "Write the page view counters of past days as OpenMetrics text, for 'promtool tsdb create-blocks-from openmetrics'.\n\n"+
		"For each UTC day from --from to --to it asks the API for the month-to-date views at the end of that day (the range from the 1st of the month to the next day, "+
		"as the live exporter does) and writes mintlify_site_page_views_total and mintlify_page_views_total with the end of the day as timestamp. "+
		"With "+collectorFlags()+" it also writes those collectors' month-to-date counters. "+
		"It costs one request per project and day for a site of up to 250 paths (ceil(P/250) for P paths: each day's walk reads every page, so that the --paths most viewed are kept whatever the API's row order), and one more for each other counter (the conversations: one a page of each day's walk). The cost is printed before anything is spent, exact where it is known and else as bounds (the pages of a walk beyond its first are known only as it reads them), and a run is paced to --budget requests in any hour. "+
		"An interrupted run keeps what it fetched in FILE.partial (with --output -, in a file whose path it prints); the same command continues it.\n\n"+
		"The admin API key is read from --mintlify.api-key-file or the MINTLIFY_API_KEY environment variable, never from a flag value.\n\n"+
		"Exit status: 0 success; 1 an API error, no answer, a file that cannot be read or written, or an interruption (run the same command again to continue); "+
		"2 a bad command line: a malformed or future date, --from after --to, an existing --output without --force, a symbolic link, FIFO, socket, device or directory at --output or FILE.partial, a FILE.partial that is not this command's journal without --force, a bad --label, a range the API refuses, "+
		"or a cost above what is left of the budget this hour without --yes.")
	app.HelpFlag.Short('h')
	app.Flag("from", "First day, YYYY-MM-DD (UTC).").PlaceHolder("YYYY-MM-DD").Required().StringVar(&o.from)
	app.Flag("to", "Last day, YYYY-MM-DD (UTC); at most yesterday, the last complete day. Default: yesterday.").PlaceHolder("YYYY-MM-DD").StringVar(&o.to)
	o.AddProjectIDs(app, "It is the project label, as in the exporter without a config file. Default: $MINTLIFY_PROJECT_ID. With --config.file: the id or name of a configured project, default all of them.")
	o.Deprecated(app, "project", "mintlify.project-id", func(c *kingpin.FlagClause) { c.StringsVar(&o.ProjectIDs) })
	o.AddConfigFile(app, "The exporter's configuration file (its --config.file): the projects, their names (the project label), their keys and budgets, the API URL and the path filters are taken from it, as the exporter takes them.")
	app.Flag("project-name", "ID=NAME: the project label of project ID, when the exporter's configuration file gives the project a name (its `name:`); repeat for several. Default: the id. Not with --config.file, which has the names.").PlaceHolder("ID=NAME").StringsVar(&o.projectNames)
	app.Flag("paths", "Per-page counters of the N most viewed paths of each day's month to date, out of its whole walk.").Default("250").IsSetByUser(&o.pathsSet).IntVar(&o.paths)
	app.Flag("site-only", "Site totals only (mintlify_site_page_views_total): one request per project and day of a single row.").BoolVar(&o.siteOnly)
	o.collectors = map[string]*bool{}
	for _, name := range extraCollectors {
		k, _ := collector.Lookup(name)
		per := "one more request per project and day"
		if k.Paging == spec.CursorPages {
			per = "each day walked once, a request per page of it (the range's first day walks the days of its month before it too)"
		}
		o.collectors[name] = app.Flag("collector."+name, "Also write "+k.Counters()[0].Name+", as the exporter's "+name+" collector: "+per+". With --config.file, a project's `collectors` list decides instead, as in the exporter.").Bool()
	}
	app.Flag("label", "Extra label name=value on every series, e.g. job=mintlify or instance=host:10491 so the history joins the scraped series; repeat for several.").PlaceHolder("NAME=VALUE").StringsVar(&o.labels)
	app.Flag("output", "OpenMetrics file to write; FILE.partial keeps the progress of a run until it is complete. '-' writes to stdout once the run is complete, keeping the progress in a file named after the arguments next to --storage.path (or in the user's cache directory when it is empty).").Short('o').PlaceHolder("FILE").Required().StringVar(&o.output)
	app.Flag("force", "Overwrite an existing --output, and start again over a FILE.partial from a run with other arguments or a regular file that is no journal. Never over a symbolic link, FIFO, socket, device or directory: those are refused.").BoolVar(&o.force)
	app.Flag("yes", "Spend more than is left of the budget this hour (the run is paced to --budget requests per hour).").BoolVar(&o.yes)
	app.Flag("budget", fmt.Sprintf("Analytics requests per hour the backfill may make with a key: the API allows %d per organization, and the exporter keeps %d in reserve. With --config.file the default is each key's budget_per_hour less its reserve, times its share.", config.DefaultKey.BudgetPerHour, config.DefaultKey.Reserve)).Default(strconv.Itoa(config.DefaultKey.BudgetPerHour - config.DefaultKey.Reserve)).IsSetByUser(&o.budgetSet).IntVar(&o.budget)
	o.AddStoragePath(app, "The exporter's state file (its --storage.path): the backfill records its requests there, under a lock, and counts the exporter's, so that together they stay within --budget. Empty not to share (then lower --budget by what the exporter spends).")
	o.AddKeyFile(app, "Not with --config.file, which says where each key is.")
	o.AddAPIURL(app, "Not with --config.file, which has its api_url.")
	o.AddRequestTimeout(app, "Default with --config.file: its request_timeout.")
	o.Deprecated(app, "request-timeout", "mintlify.request-timeout", func(c *kingpin.FlagClause) {
		c.IsSetByUser(&o.TimeoutSet).DurationVar(&o.RequestTimeout)
	})

	helped := new(bool)
	app.HelpFlag.PreAction(func(*kingpin.ParseContext) error { *helped = true; return nil })
	return app, helped
}

func (e *backfillEnv) failf(code int, format string, args ...any) int {
	e.endBar()
	fmt.Fprintf(e.stderr, backfillCmdName+": "+format+"\n", args...)
	return code
}

func (e *backfillEnv) run(ctx context.Context, args []string) int {
	var o backfillOptions
	app, _ := newBackfillApp(&o)
	if _, code, done := cli.Parse(app, args, e.stdout, e.stderr, backfillCmdName, cli.ExitUsage); done {
		return code
	}
	o.Warn(e.stderr, backfillCmdName)
	plan, cfg, code := e.plan(&o)
	if code != cli.ExitOK {
		return code
	}
	keys, code := e.readKeys(&o, plan, cfg)
	if code != cli.ExitOK {
		return code
	}
	j, partial, code := e.openJournal(&o, plan)
	if code != cli.ExitOK {
		return code
	}
	defer j.Close()

	progress := newBackfillProgress(plan, j.pages)
	if o.StoragePath != "" {
		// The exporter's recorded month-walk sizes tell what a day costs before the backfill's own walks do.
		l := statefiles.LedgerFor(o.StoragePath)
		sites, err := l.Sites()
		e.sayReplaced(l)
		if err == nil {
			plan.knownSites(sites)
			progress.total = progress.done + progress.requestsLeft(nil)
		}
	}
	e.printCost(plan, keys, progress, partial)
	if code := e.checkBudgets(&o, keys, j, partial); code != cli.ExitOK {
		return code
	}
	for _, k := range keys {
		var closeClient func()
		var err error
		// One retry, charged like any request, as the exporter does.
		if k.client, closeClient, err = cli.NewClient(plan.apiURL, k.secret, plan.timeout, 1); err != nil {
			return e.failf(cli.ExitUsage, "%v", err)
		}
		defer closeClient()
	}
	e.sayLedger(o.StoragePath)
	if code := e.fetch(ctx, plan, keys, j, progress); code != cli.ExitOK {
		return code
	}
	return e.write(&o, plan, progress, j, partial)
}

func (e *backfillEnv) plan(o *backfillOptions) (*backfillPlan, *config.Config, int) {
	var cfg *config.Config
	if o.ConfigFile != "" {
		var err error
		if cfg, err = config.LoadFile(o.ConfigFile); err != nil {
			return nil, nil, e.failf(cli.ExitUsage, "--config.file: %v", err)
		}
	} else if len(o.ProjectIDs) == 0 {
		if id := e.getenv("MINTLIFY_PROJECT_ID"); id != "" {
			o.ProjectIDs = []string{id}
		}
	}
	plan, err := checkBackfillArgs(o, e.now(), cfg)
	if err != nil {
		return nil, nil, e.failf(cli.ExitUsage, "%v", err)
	}
	if o.output == "" {
		return nil, nil, e.failf(cli.ExitUsage, "--output is empty: give a file, or - for stdout")
	}
	if o.output != "-" {
		if err := checkOutput(o.output, o.force); err != nil {
			return nil, nil, e.failf(cli.ExitUsage, "%v", err)
		}
	}
	return plan, cfg, cli.ExitOK
}

func (e *backfillEnv) readKeys(o *backfillOptions, plan *backfillPlan, cfg *config.Config) ([]*backfillKey, int) {
	keys := make([]*backfillKey, len(plan.keys))
	for i, ref := range plan.keys {
		k := &backfillKey{keyRef: ref}
		var err error
		if ref.index < 0 {
			if k.secret, err = cli.ReadKey(o.KeyFile, e.getenv); err != nil {
				return nil, e.failf(cli.ExitCodeOf(err), "%v", err)
			}
		} else {
			if k.secret, err = cfg.Keys[ref.index].Read(e.getenv); err == nil {
				err = mintlify.ValidateKey(k.secret.Reveal())
			}
			if err != nil {
				code := cli.ExitUsage
				if errors.As(err, new(*fs.PathError)) {
					code = cli.ExitError
				}
				return nil, e.failf(code, "%v", cfg.KeyError(ref.index, err))
			}
		}
		keys[i] = k
	}
	return keys, cli.ExitOK
}

// openJournal replaces a journal of a run with other arguments only with --force.
func (e *backfillEnv) openJournal(o *backfillOptions, plan *backfillPlan) (*journal, string, int) {
	args := plan.args()
	partial := o.output + ".partial"
	var err error
	if o.output == "-" {
		if partial, err = stdoutJournalPath(o.StoragePath, args); err != nil {
			return nil, "", e.failf(cli.ExitError, "no place for the progress file of --output -: %v (give --storage.path, or --output FILE)", err)
		}
	}
	j, err := openJournal(partial, args, o.force)
	switch {
	case errors.Is(err, errJournalArgs):
		return nil, "", e.failf(cli.ExitUsage, "%s is the progress of a backfill with other arguments; run that command again to finish it, or give --force to start this one", partial)
	case errors.Is(err, errPreReleaseJournal):
		return nil, "", e.failf(cli.ExitUsage, "%s is the progress file of a development build before 0.1.0, which this backfill does not read; delete it (or give --force) and run the command again: what it held is fetched again", partial)
	case errors.Is(err, errNotJournal):
		return nil, "", e.failf(cli.ExitUsage, "%s exists and is not the progress file of a backfill; refusing to overwrite it (remove it, or give --force)", partial)
	case errors.As(err, new(*safefile.NotRegularError)):
		return nil, "", e.failf(cli.ExitUsage, "%v (remove it, or give another --output)", err)
	case errors.As(err, new(*changedError)):
		return nil, "", e.failf(cli.ExitError, "%v", err)
	case err != nil:
		return nil, "", e.failf(cli.ExitError, "progress file %s: %v", partial, err)
	}
	return j, partial, cli.ExitOK
}

// printCost speaks before anything is spent.
func (e *backfillEnv) printCost(plan *backfillPlan, keys []*backfillKey, progress *backfillProgress, partial string) {
	all := progress.costs(nil)
	hours := 0.0
	var per []string
	for i, k := range keys {
		c := progress.costs(func(id string) bool { return plan.keyOf[id] == i }).total()
		k.left = c.expected
		// The keys' projects are fetched one after the other.
		hours += float64(k.left) / float64(k.budget)
		per = append(per, fmt.Sprintf("key %s %s at %d per hour", k.name, rangeText(c), k.budget))
	}
	fmt.Fprintf(e.stderr, "%s: %d project(s) × %d day(s) (%s to %s): %s",
		backfillCmdName, len(plan.projects), plan.days(), plan.from.Format(mintlify.DayLayout), plan.to.Format(mintlify.DayLayout), costText(all, progress.done))
	if progress.done > 0 {
		fmt.Fprintf(e.stderr, ", %d done, %s left to make (%s)", progress.done, rangeText(all.total()), partial)
	}
	if len(keys) == 1 {
		fmt.Fprintf(e.stderr, ": %.1f hour(s) of a budget of %d requests per hour\n", hours, keys[0].budget)
		return
	}
	fmt.Fprintf(e.stderr, ": %.1f hour(s) of the keys' budgets (%s)\n", hours, strings.Join(per, ", "))
}

// checkBudgets refuses, unless --yes, a run that needs more than the exporter and earlier runs left this hour.
func (e *backfillEnv) checkBudgets(o *backfillOptions, keys []*backfillKey, j *journal, partial string) int {
	for _, k := range keys {
		k.ledger = &backfillLedger{fp: statefiles.Fingerprint(k.secret.Reveal())}
		k.window = budget.New(k.budget, clockFunc(e.now))
		if o.StoragePath != "" {
			k.ledger.l = statefiles.LedgerFor(o.StoragePath)
			err := k.ledger.l.Usage(k.ledger.fp, backfillWriter, k.window, e.now())
			e.sayReplaced(k.ledger.l)
			if err != nil {
				return e.failf(cli.ExitError, "%v (give --storage.path='' not to share the budget with the exporter)", err)
			}
		}
		avail := k.window.Available()
		if avail < k.budget {
			fmt.Fprintf(e.stderr, "%s: %d of them are left this hour%s: the exporter and earlier runs made %d requests with the key in the last hour (%s)\n", backfillCmdName, avail, k.of(), k.window.Used(), o.StoragePath)
		}
		if k.left > avail && !o.yes {
			j.Close()
			if len(j.pages) == 0 {
				os.Remove(partial)
			}
			return e.failf(cli.ExitUsage, "this needs more than what is left of the budget this hour%s (%d requests, %d left of %d per hour); give --yes to go ahead (the run is paced to the budget, shared with the exporter), or narrow --from/--to, --mintlify.project-id or --paths", k.of(), k.left, avail, k.budget)
		}
	}
	return cli.ExitOK
}

func writeOutput(path string, plan *backfillPlan, progress *backfillProgress, now time.Time) error {
	p, err := safefile.Begin(path)
	if err != nil {
		return err
	}
	if err := renderBackfill(p, plan, progress, now); err != nil {
		p.Abort()
		return err
	}
	return p.Commit()
}

func (e *backfillEnv) write(o *backfillOptions, plan *backfillPlan, progress *backfillProgress, j *journal, partial string) int {
	toStdout := o.output == "-"
	if toStdout {
		// Only now, every page journaled: an interrupted run writes nothing to stdout, the one completing it the whole text.
		if err := renderBackfill(e.stdout, plan, progress, e.now()); err != nil {
			return e.failf(cli.ExitError, "writing to stdout: %v (the progress is kept in %s; run the same command again to write it)", err, partial)
		}
	} else if err := writeOutput(o.output, plan, progress, e.now()); err != nil {
		return e.failf(cli.ExitError, "%v (the progress is kept in %s)", err, partial)
	}
	j.Close()
	if err := os.Remove(partial); err != nil {
		fmt.Fprintf(e.stderr, "%s: removing %s: %v\n", backfillCmdName, partial, err)
	}
	if toStdout {
		fmt.Fprintf(e.stderr, "%s: wrote the OpenMetrics text to stdout\n", backfillCmdName)
	} else {
		// For pasting: no command when the path holds a character a terminal would act on.
		next := "; next: run promtool tsdb create-blocks-from openmetrics on it"
		if q, ok := cli.ShellCommand(o.output); ok {
			next = "; next: promtool tsdb create-blocks-from openmetrics " + q + " DATA_DIR"
		}
		fmt.Fprintf(e.stderr, "%s: wrote %s%s\n", backfillCmdName, o.output, next)
	}
	return cli.ExitOK
}
