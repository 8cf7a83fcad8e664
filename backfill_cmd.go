package main

// The `mintlify_exporter backfill` command: fetch the month-to-date page
// view counters the live exporter exports, as they stood at the end of
// each past UTC day, and write them as OpenMetrics text with timestamps
// for `promtool tsdb create-blocks-from openmetrics`. The journal and the
// output format live in backfill_output.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/atomicfile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/ids"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// Exit codes of the backfill command.
const (
	backfillExitOK    = 0
	backfillExitError = 1 // API error, no answer, a file not readable or writable, interrupted (all resumable)
	backfillExitUsage = 2 // bad command line, a range the API refuses, a cost not confirmed with --yes
)

const (
	backfillCmdName = exporterName + " backfill"
	// defaultBackfillBudget is the exporter's default per key: the API's
	// 100 analytics requests per organization and hour, less its reserve
	// of 10.
	defaultBackfillBudget = 90
	// maxRateLimitWaits is how many 429 answers in a row the backfill
	// sits out before it gives up (resumably).
	maxRateLimitWaits = 5
	// defaultRateLimitWait is the wait after a 429 without Retry-After.
	defaultRateLimitWait = time.Minute
)

// backfillEnv is everything the backfill touches outside itself. Tests
// replace the clock and sleep, so pacing needs no real waiting.
type backfillEnv struct {
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	now    func() time.Time
	// sleep waits d or until ctx ends, whichever is first.
	sleep func(ctx context.Context, d time.Duration) error
	// afterPage, if set, runs after the n-th page of this run (from 1)
	// is in the journal.
	afterPage func(n int)
	// tty: stderr is a terminal, where progress is one line redrawn (a
	// bar) rather than a line per day; barShown: that line is on screen.
	tty, barShown bool
}

func runBackfill(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &backfillEnv{stdout: stdout, stderr: stderr, getenv: os.Getenv, now: time.Now, sleep: sleepContext}
	if f, ok := stderr.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			env.tty = true
		}
	}
	return env.run(ctx, args)
}

// backfillOptions is the parsed command line.
type backfillOptions struct {
	from, to       string
	projects       []string
	projectNames   []string
	paths          int
	pathsSet       bool
	siteOnly       bool
	labels         []string
	output         string
	force          bool
	yes            bool
	budget         int
	storagePath    string
	keyFile        string
	apiURL         string
	requestTimeout time.Duration
	configFile     string
	collectors     map[string]*bool // --collector.feedback etc.
	// Set on the command line, not defaulted.
	budgetSet, apiURLSet, timeoutSet bool
}

func newBackfillApp(o *backfillOptions) (*kingpin.Application, *bool) {
	app := kingpin.New(backfillCmdName, "Write the page view counters of past days as OpenMetrics text, for 'promtool tsdb create-blocks-from openmetrics'.\n\n"+
		"For each UTC day from --from to --to it asks the API for the month-to-date views at the end of that day (the range from the 1st of the month to the next day, "+
		"as the live exporter does) and writes mintlify_site_page_views_total and mintlify_page_views_total with the end of the day as timestamp. "+
		"With --collector.feedback, --collector.searches and --collector.assistant it also writes those collectors' month-to-date counters. "+
		"It costs one request per project and day, ceil(N/250) with --paths N above 250, and one more for each other counter. The cost is printed before anything is spent, and a run is paced to --budget requests in any hour. "+
		"An interrupted run keeps what it fetched in FILE.partial (with --output -, in a file whose path it prints); the same command continues it.\n\n"+
		"The admin API key is read from --mintlify.api-key-file or the MINTLIFY_API_KEY environment variable, never from a flag value.\n\n"+
		"Exit status: 0 success; 1 an API error, no answer, a file that cannot be read or written, or an interruption (run the same command again to continue); "+
		"2 a bad command line: a malformed or future date, --from after --to, an existing --output without --force, a bad --label, a range the API refuses, "+
		"or a cost above what is left of the budget this hour without --yes.")
	app.HelpFlag.Short('h')
	app.Flag("from", "First day, YYYY-MM-DD (UTC).").PlaceHolder("YYYY-MM-DD").Required().StringVar(&o.from)
	app.Flag("to", "Last day, YYYY-MM-DD (UTC); at most yesterday, the last complete day. Default: yesterday.").PlaceHolder("YYYY-MM-DD").StringVar(&o.to)
	app.Flag("project", "Project id; repeat for several. It is the project label, as in the exporter without a config file. Default: $MINTLIFY_PROJECT_ID. With --config.file: the id or name of a configured project, default all of them.").PlaceHolder("ID").StringsVar(&o.projects)
	app.Flag("config.file", "The exporter's configuration file (its --config.file): the projects, their names (the project label), their keys and budgets, the API URL and the path filters are taken from it, as the exporter takes them.").PlaceHolder("FILE").StringVar(&o.configFile)
	app.Flag("project-name", "ID=NAME: the project label of project ID, when the exporter's configuration file gives the project a name (its `name:`); repeat for several. Default: the id. Not with --config.file, which has the names.").PlaceHolder("ID=NAME").StringsVar(&o.projectNames)
	app.Flag("paths", "Per-page counters of the N most viewed paths of each month-to-date (ceil(N/250) requests per project and day).").Default("250").IsSetByUser(&o.pathsSet).IntVar(&o.paths)
	app.Flag("site-only", "Site totals only (mintlify_site_page_views_total): one request per project and day of a single row.").BoolVar(&o.siteOnly)
	o.collectors = map[string]*bool{}
	for _, c := range []struct{ name, series string }{
		{kindFeedback, "mintlify_page_feedback_total"},
		{kindSearches, "mintlify_searches_total"},
		{kindAssistant, "mintlify_assistant_queries_total"},
	} {
		o.collectors[c.name] = app.Flag("collector."+c.name, "Also write "+c.series+", as the exporter's "+c.name+" collector: one more request per project and day. With --config.file, a project's `collectors` list decides instead, as in the exporter.").Bool()
	}
	app.Flag("label", "Extra label name=value on every series, e.g. job=mintlify or instance=host:10491 so the history joins the scraped series; repeat for several.").PlaceHolder("NAME=VALUE").StringsVar(&o.labels)
	app.Flag("output", "OpenMetrics file to write; FILE.partial keeps the progress of a run until it is complete. '-' writes to stdout once the run is complete, keeping the progress in a file named after the arguments next to --storage.path (or in the user's cache directory when it is empty).").Short('o').PlaceHolder("FILE").Required().StringVar(&o.output)
	app.Flag("force", "Overwrite an existing --output, and start again when FILE.partial is from a run with other arguments.").BoolVar(&o.force)
	app.Flag("yes", "Spend more than is left of the budget this hour (the run is paced to --budget requests per hour).").BoolVar(&o.yes)
	app.Flag("budget", "Analytics requests per hour the backfill may make with a key: the API allows 100 per organization, and the exporter keeps 10 in reserve. With --config.file the default is each key's budget_per_hour less its reserve, times its share.").Default(strconv.Itoa(defaultBackfillBudget)).IsSetByUser(&o.budgetSet).IntVar(&o.budget)
	app.Flag("storage.path", "The exporter's state file (its --storage.path): the backfill records its requests there, under a lock, and counts the exporter's, so that together they stay within --budget. Empty not to share (then lower --budget by what the exporter spends).").Default(defaultStoragePath(os.Getenv)).StringVar(&o.storagePath)
	app.Flag("mintlify.api-key-file", "File holding the admin API key. Otherwise the key is read from the MINTLIFY_API_KEY environment variable. Not with --config.file, which says where each key is.").PlaceHolder("FILE").StringVar(&o.keyFile)
	app.Flag("mintlify.api-url", "Base URL of the Mintlify API. Not with --config.file, which has its api_url.").Default(mintlify.DefaultBaseURL).IsSetByUser(&o.apiURLSet).StringVar(&o.apiURL)
	app.Flag("request-timeout", "Timeout of each API request. Default with --config.file: its request_timeout.").Default("30s").IsSetByUser(&o.timeoutSet).DurationVar(&o.requestTimeout)

	helped := new(bool)
	app.HelpFlag.PreAction(func(*kingpin.ParseContext) error { *helped = true; return nil })
	return app, helped
}

// parse runs kingpin (see parseKingpin).
func (e *backfillEnv) parse(args []string, o *backfillOptions) (code int, done bool) {
	app, _ := newBackfillApp(o)
	_, code, done = parseKingpin(app, args, e.stdout, e.stderr, backfillCmdName, backfillExitUsage)
	return code, done
}

func (e *backfillEnv) failf(code int, format string, args ...any) int {
	e.endBar()
	fmt.Fprintf(e.stderr, backfillCmdName+": "+format+"\n", args...)
	return code
}

// backfillPlan is what a run fetches.
type backfillPlan struct {
	from, to time.Time         // first and last day, midnight UTC
	projects []string          // sorted, without duplicates
	names    map[string]string // project label by id, where it is not the id
	paths    int               // 0: site totals only
	labels   []labelPair
	// keys the projects use, and the index in keys of each project's.
	keys  []keyRef
	keyOf map[string]int
	// configured is each project's configuration (--config.file), for
	// its path filters; absent without one.
	configured map[string]config.Project
	apiURL     string
	timeout    time.Duration
	// extra is the counters other than the views backfilled for each
	// project, in the order of extraKinds.
	extra map[string][]string
}

// The counters other than the page views the backfill can write, by the
// name of the exporter's collector of each, in the order of the output.
const (
	kindFeedback  = "feedback"
	kindSearches  = "searches"
	kindAssistant = "assistant"
)

var extraKinds = []string{kindFeedback, kindSearches, kindAssistant}

// perDayText says what one day of a project costs: "1 request(s) per
// day", with the counters other than the views when there are some, and
// per project when they differ.
func (p *backfillPlan) perDayText() string {
	views := fmt.Sprintf("%d for the views", p.pagesPerDay())
	text := func(id string) string {
		if len(p.extra[id]) == 0 {
			return fmt.Sprintf("%d request(s) per day", p.perDay(id))
		}
		return fmt.Sprintf("%d request(s) per day (%s, 1 each for %s)", p.perDay(id), views, strings.Join(p.extra[id], ", "))
	}
	first := text(p.projects[0])
	for _, id := range p.projects[1:] {
		if text(id) != first {
			var per []string
			for _, id := range p.projects {
				per = append(per, p.label(id)+": "+text(id))
			}
			return "the requests per day of each project (" + strings.Join(per, "; ") + ")"
		}
	}
	return first
}

// label is the project label of project id.
func (p *backfillPlan) label(id string) string {
	if name := p.names[id]; name != "" {
		return name
	}
	return id
}

// perDay is the requests one day of project id costs.
func (p *backfillPlan) perDay(id string) int { return p.pagesPerDay() + len(p.extra[id]) }

// keyRef is one API key of a plan: the --mintlify.api-key-file or
// MINTLIFY_API_KEY one (index -1), or keys[index] of the configuration.
type keyRef struct {
	name   string // the configuration's name for it; "" for the flag's
	index  int
	budget int // requests per hour
}

// keep reports whether the page series of path is written for project
// id: a path the exporter exports, and allowed by the project's
// include_paths and exclude_paths.
func (p *backfillPlan) keep(id, path string) bool {
	if !usablePath(path) {
		return false
	}
	pr, ok := p.configured[id]
	return !ok || pr.PathAllowed(path)
}

// maxPaths is how many paths of a project and day are written at most:
// --paths, or the project's max_paths when lower.
func (p *backfillPlan) maxPaths(id string) int {
	if pr, ok := p.configured[id]; ok && pr.MaxPaths > 0 {
		return min(p.paths, pr.MaxPaths)
	}
	return p.paths
}

// days is the number of days in the plan.
func (p *backfillPlan) days() int { return int(p.to.Sub(p.from)/(24*time.Hour)) + 1 }

// pagesPerDay is the requests one project and day cost.
func (p *backfillPlan) pagesPerDay() int {
	return max(1, (p.paths+mintlify.MaxPageSize-1)/mintlify.MaxPageSize)
}

// limit is the page size of the page at offset.
func (p *backfillPlan) limit(offset int) int {
	if p.paths == 0 {
		return 1
	}
	return min(mintlify.MaxPageSize, p.paths-offset)
}

// args is the canonical form of what decides the output's content: a
// journal resumes only a run of the same.
func (p *backfillPlan) args() string {
	var b strings.Builder
	fmt.Fprintf(&b, "from=%s to=%s paths=%d url=%s", p.from.Format(mintlify.DayLayout), p.to.Format(mintlify.DayLayout), p.paths, p.apiURL)
	for _, id := range p.projects {
		fmt.Fprintf(&b, " project=%q", id)
		if name := p.names[id]; name != "" {
			fmt.Fprintf(&b, " name=%q", name)
		}
		if kinds := p.extra[id]; len(kinds) > 0 {
			fmt.Fprintf(&b, " counters=%s", strings.Join(kinds, ","))
		}
		if pr, ok := p.configured[id]; ok {
			for _, re := range pr.IncludePaths {
				fmt.Fprintf(&b, " include=%q", re.String())
			}
			for _, re := range pr.ExcludePaths {
				fmt.Fprintf(&b, " exclude=%q", re.String())
			}
			if pr.MaxPaths > 0 {
				fmt.Fprintf(&b, " max_paths=%d", pr.MaxPaths)
			}
		}
	}
	for _, l := range p.labels {
		fmt.Fprintf(&b, " label=%q", l.name+"="+l.value)
	}
	return b.String()
}

var labelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// checkBackfillArgs turns the command line into a plan, or says what is
// wrong with it. now is the current time; cfg is the configuration of
// --config.file, nil without one.
func checkBackfillArgs(o *backfillOptions, now time.Time, cfg *config.Config) (*backfillPlan, error) {
	today := now.UTC().Truncate(24 * time.Hour)
	yesterday := today.AddDate(0, 0, -1)
	day := func(flag, s string) (time.Time, error) {
		t, err := time.Parse(mintlify.DayLayout, s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%s %q is not a date of the form YYYY-MM-DD", flag, s)
		}
		if t.After(yesterday) {
			return time.Time{}, fmt.Errorf("%s %s is today or in the future: the last complete UTC day is %s", flag, s, yesterday.Format(mintlify.DayLayout))
		}
		return t, nil
	}
	p := &backfillPlan{}
	var err error
	if p.from, err = day("--from", o.from); err != nil {
		return nil, err
	}
	p.to = yesterday
	if o.to != "" {
		if p.to, err = day("--to", o.to); err != nil {
			return nil, err
		}
	}
	if p.from.After(p.to) {
		return nil, fmt.Errorf("--from %s is after --to %s", p.from.Format(mintlify.DayLayout), p.to.Format(mintlify.DayLayout))
	}
	p.names = map[string]string{}
	p.keyOf = map[string]int{}
	p.extra = map[string][]string{}
	if cfg != nil {
		if err := p.fromConfig(o, cfg); err != nil {
			return nil, err
		}
	} else {
		if len(o.projects) == 0 {
			return nil, errors.New("no project: give --project (or set MINTLIFY_PROJECT_ID), or --config.file")
		}
		for _, id := range o.projects {
			if err := ids.Check(id); err != nil {
				return nil, fmt.Errorf("--project: %w", err)
			}
			if !slices.Contains(p.projects, id) {
				p.projects = append(p.projects, id)
			}
		}
		if o.budget < 1 {
			return nil, fmt.Errorf("--budget must be at least 1, got %d", o.budget)
		}
		p.keys = []keyRef{{index: -1, budget: o.budget}}
		for _, id := range p.projects {
			p.keyOf[id] = 0
			p.extra[id] = o.extraKinds(nil)
		}
		p.apiURL, p.timeout = o.apiURL, o.requestTimeout
	}
	slices.Sort(p.projects)
	for _, pn := range o.projectNames {
		id, name, ok := strings.Cut(pn, "=")
		switch {
		case !ok || name == "" || !utf8.ValidString(name):
			return nil, fmt.Errorf("--project-name %q: want ID=NAME, NAME the project's name in the exporter's configuration", pn)
		case !slices.Contains(p.projects, id):
			return nil, fmt.Errorf("--project-name %q: %s is not one of the --project ids", pn, id)
		case p.names[id] != "":
			return nil, fmt.Errorf("--project-name given twice for %s", id)
		}
		p.names[id] = name
	}
	switch {
	case o.siteOnly && o.pathsSet:
		return nil, errors.New("give either --paths or --site-only, not both")
	case o.siteOnly:
		p.paths = 0
	case o.paths < 1:
		return nil, fmt.Errorf("--paths must be at least 1 (or use --site-only), got %d", o.paths)
	default:
		p.paths = o.paths
	}
	seen := map[string]bool{}
	for _, l := range o.labels {
		name, value, ok := strings.Cut(l, "=")
		switch {
		case !ok || !labelName.MatchString(name):
			return nil, fmt.Errorf("--label %q: want NAME=VALUE with a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)", l)
		case strings.HasPrefix(name, "__"):
			return nil, fmt.Errorf("--label %q: names starting with __ are reserved by Prometheus", l)
		case name == "project" || name == "path" || name == "traffic" || name == "kind" || name == "caller":
			return nil, fmt.Errorf("--label %q: %s is a label of the counters themselves", l, name)
		case value == "":
			return nil, fmt.Errorf("--label %q: an empty value is no label in Prometheus", l)
		case !utf8.ValidString(value):
			return nil, fmt.Errorf("--label %q: the value is not valid UTF-8", l)
		case seen[name]:
			return nil, fmt.Errorf("--label %s given twice", name)
		}
		seen[name] = true
		p.labels = append(p.labels, labelPair{name, value})
	}
	slices.SortFunc(p.labels, func(a, b labelPair) int { return strings.Compare(a.name, b.name) })
	if p.timeout <= 0 {
		return nil, errors.New("--request-timeout must be positive")
	}
	if cfg == nil {
		if err := config.CheckAPIURL(o.apiURL); err != nil {
			return nil, fmt.Errorf("--mintlify.api-url %w", err)
		}
		if err := checkAPIURLFlag(o.apiURL); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// extraKinds is the counters other than the views to write for a
// project: those of its configured collectors when it lists some (as the
// exporter does), else those of the --collector.NAME flags.
func (o *backfillOptions) extraKinds(configured []string) []string {
	var kinds []string
	for _, k := range extraKinds {
		if len(configured) > 0 && slices.Contains(configured, k) || len(configured) == 0 && o.collectors[k] != nil && *o.collectors[k] {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// fromConfig takes the projects, their labels and keys, the API URL and
// the request timeout from the exporter's configuration: the projects
// --project names (by id or name), or all of them.
func (p *backfillPlan) fromConfig(o *backfillOptions, cfg *config.Config) error {
	switch {
	case len(o.projectNames) > 0:
		return errors.New("--project-name and --config.file: the project labels are the names in the configuration")
	case o.keyFile != "":
		return errors.New("--mintlify.api-key-file and --config.file: the keys are those of the configuration (api_key_file or api_key_env)")
	case o.apiURLSet:
		return errors.New("--mintlify.api-url and --config.file: the API URL is the configuration's global.api_url")
	case o.budgetSet && o.budget < 1:
		return fmt.Errorf("--budget must be at least 1, got %d", o.budget)
	}
	selected := cfg.Projects
	if len(o.projects) > 0 {
		selected = nil
		for _, ref := range o.projects {
			i := slices.IndexFunc(cfg.Projects, func(pr config.Project) bool { return pr.ID == ref || pr.Name == ref })
			if i < 0 {
				var known []string
				for _, pr := range cfg.Projects {
					known = append(known, pr.Name)
				}
				return fmt.Errorf("--project %q is neither the id nor the name of a project in %s (names: %s)", ref, o.configFile, strings.Join(known, ", "))
			}
			if !slices.ContainsFunc(selected, func(pr config.Project) bool { return pr.ID == cfg.Projects[i].ID }) {
				selected = append(selected, cfg.Projects[i])
			}
		}
	}
	p.configured = map[string]config.Project{}
	keyIndex := map[string]int{} // in p.keys, by the configuration's key name
	for _, pr := range selected {
		p.projects = append(p.projects, pr.ID)
		p.configured[pr.ID] = pr
		if pr.Name != "" && pr.Name != pr.ID {
			p.names[pr.ID] = pr.Name
		}
		name := pr.KeyName(cfg)
		ki, ok := keyIndex[name]
		if !ok {
			ci := slices.IndexFunc(cfg.Keys, func(k config.Key) bool { return k.Name == name })
			if ci < 0 { // the configuration's validation rules this out
				return fmt.Errorf("%s: project %s uses no known key", o.configFile, pr.Name)
			}
			b := cfg.Keys[ci].EffectiveBudget()
			if o.budgetSet {
				b = o.budget
			}
			ki = len(p.keys)
			keyIndex[name] = ki
			p.keys = append(p.keys, keyRef{name: name, index: ci, budget: b})
		}
		p.keyOf[pr.ID] = ki
		p.extra[pr.ID] = o.extraKinds(pr.Collectors)
	}
	p.apiURL = cfg.Global.APIURL
	p.timeout = time.Duration(cfg.Global.RequestTimeout)
	if o.timeoutSet {
		p.timeout = o.requestTimeout
	}
	return nil
}

func (e *backfillEnv) run(ctx context.Context, args []string) int {
	var o backfillOptions
	if code, done := e.parse(args, &o); done {
		return code
	}
	var cfg *config.Config
	if o.configFile != "" {
		var err error
		if cfg, err = config.LoadFile(o.configFile); err != nil {
			return e.failf(backfillExitUsage, "--config.file: %v", err)
		}
	} else if len(o.projects) == 0 {
		if id := e.getenv("MINTLIFY_PROJECT_ID"); id != "" {
			o.projects = []string{id}
		}
	}
	plan, err := checkBackfillArgs(&o, e.now(), cfg)
	if err != nil {
		return e.failf(backfillExitUsage, "%v", err)
	}
	if o.output == "" {
		return e.failf(backfillExitUsage, "--output is empty: give a file, or - for stdout")
	}
	toStdout := o.output == "-"
	if _, err := os.Lstat(o.output); err == nil && !o.force && !toStdout {
		return e.failf(backfillExitUsage, "--output %s exists; give --force to overwrite it", o.output)
	}
	keys := make([]*backfillKey, len(plan.keys))
	for i, ref := range plan.keys {
		k := &backfillKey{keyRef: ref}
		if ref.index < 0 {
			if k.secret, err = readFlagKey(o.keyFile, e.getenv); err != nil {
				return e.failf(exitCodeOf(err), "%v", err)
			}
		} else {
			if k.secret, err = cfg.Keys[ref.index].Read(e.getenv); err == nil {
				err = mintlify.ValidateKey(k.secret.Reveal())
			}
			if err != nil {
				code := backfillExitUsage
				if errors.As(err, new(*fs.PathError)) {
					code = backfillExitError
				}
				return e.failf(code, "%v", cfg.KeyError(ref.index, err))
			}
		}
		keys[i] = k
	}
	args2 := plan.args()
	partial := o.output + ".partial"
	if toStdout {
		if partial, err = stdoutJournalPath(o.storagePath, args2); err != nil {
			return e.failf(backfillExitError, "no place for the progress file of --output -: %v (give --storage.path, or --output FILE)", err)
		}
	}
	j, err := openJournal(partial, args2)
	if errors.Is(err, errJournalArgs) && o.force {
		if err = os.Remove(partial); err == nil {
			j, err = openJournal(partial, args2)
		}
	}
	switch {
	case errors.Is(err, errJournalArgs):
		return e.failf(backfillExitUsage, "%s is the progress of a backfill with other arguments; run that command again to finish it, or give --force to start this one", partial)
	case err != nil:
		return e.failf(backfillExitError, "progress file %s: %v", partial, err)
	}
	defer j.Close()

	// The cost, before anything is spent.
	progress := newBackfillProgress(plan, j.pages)
	total := progress.total
	left := 0
	hours := 0.0
	for i, k := range keys {
		k.left = progress.requestsLeft(func(id string) bool { return plan.keyOf[id] == i })
		left += k.left
		// The keys' projects are fetched one after the other.
		hours += float64(k.left) / float64(k.budget)
	}
	upTo := ""
	if plan.paths > mintlify.MaxPageSize {
		upTo = "at most "
	}
	fmt.Fprintf(e.stderr, "%s: %d project(s) × %d day(s) (%s to %s) × %s = %s%d requests",
		backfillCmdName, len(plan.projects), plan.days(), plan.from.Format(mintlify.DayLayout), plan.to.Format(mintlify.DayLayout), plan.perDayText(), upTo, total)
	if left != total {
		fmt.Fprintf(e.stderr, ", %s%d left to make (%s)", upTo, left, partial)
	}
	if len(keys) == 1 {
		fmt.Fprintf(e.stderr, ": %.1f hour(s) of a budget of %d requests per hour\n", hours, keys[0].budget)
	} else {
		var per []string
		for _, k := range keys {
			per = append(per, fmt.Sprintf("key %s %s%d at %d per hour", k.name, upTo, k.left, k.budget))
		}
		fmt.Fprintf(e.stderr, ": %.1f hour(s) of the keys' budgets (%s)\n", hours, strings.Join(per, ", "))
	}
	for _, k := range keys {
		k.ledger = &backfillLedger{path: o.storagePath, fp: collector.KeyFingerprint(k.secret.Reveal())}
		k.window = budget.New(k.budget, clockFunc(e.now))
		if k.ledger.path != "" {
			if err := collector.LedgerUsage(k.ledger.path, k.ledger.fp, backfillWriter, k.window); err != nil {
				j.Close()
				return e.failf(backfillExitError, "%v (give --storage.path='' not to share the budget with the exporter)", err)
			}
		}
		avail := k.window.Available()
		if avail < k.budget {
			fmt.Fprintf(e.stderr, "%s: %d of them are left this hour%s: the exporter and earlier runs made %d requests with the key in the last hour (%s)\n", backfillCmdName, avail, k.of(), k.window.Used(), k.ledger.path)
		}
		if k.left > avail && !o.yes {
			j.Close()
			if len(j.pages) == 0 {
				os.Remove(partial)
			}
			return e.failf(backfillExitUsage, "this needs more than what is left of the budget this hour%s (%d requests, %d left of %d per hour); give --yes to go ahead (the run is paced to the budget, shared with the exporter), or narrow --from/--to, --project or --paths", k.of(), k.left, avail, k.budget)
		}
	}

	for _, k := range keys {
		var closeClient func()
		if k.client, closeClient, err = e.client(plan, k.secret); err != nil {
			return e.failf(backfillExitUsage, "%v", err)
		}
		defer closeClient()
	}
	if code := e.fetch(ctx, plan, keys, j, progress); code != backfillExitOK {
		return code
	}
	if toStdout {
		// Only now, with every page in the journal: an interrupted run
		// writes nothing to stdout, and the run that completes it writes
		// the whole text, as one uninterrupted run would.
		if err := renderBackfill(e.stdout, plan, j.pages); err != nil {
			return e.failf(backfillExitError, "writing to stdout: %v (the progress is kept in %s; run the same command again to write it)", err, partial)
		}
	} else if err := atomicfile.Write(o.output, func(w io.Writer) error { return renderBackfill(w, plan, j.pages) }); err != nil {
		return e.failf(backfillExitError, "writing %s: %v (the progress is kept in %s)", o.output, err, partial)
	}
	j.Close()
	if err := os.Remove(partial); err != nil {
		fmt.Fprintf(e.stderr, "%s: removing %s: %v\n", backfillCmdName, partial, err)
	}
	if toStdout {
		fmt.Fprintf(e.stderr, "%s: wrote the OpenMetrics text to stdout\n", backfillCmdName)
	} else {
		fmt.Fprintf(e.stderr, "%s: wrote %s; next: promtool tsdb create-blocks-from openmetrics %s DATA_DIR\n", backfillCmdName, o.output, o.output)
	}
	return backfillExitOK
}

// backfillKey is one API key of a run, with its budget and its share of
// the state file.
type backfillKey struct {
	keyRef
	secret secret.Secret
	left   int // requests still to make with it
	window *budget.Window
	ledger *backfillLedger
	client *mintlify.Client
}

// of names the key in a message when it comes from the configuration.
func (k *backfillKey) of() string {
	if k.name == "" {
		return ""
	}
	return " for key " + k.name
}

func (e *backfillEnv) client(plan *backfillPlan, key secret.Secret) (*mintlify.Client, func(), error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	c, err := mintlify.New(mintlify.Options{
		BaseURL:        plan.apiURL,
		Key:            key,
		UserAgent:      userAgent(),
		HTTPClient:     &http.Client{Transport: transport},
		RequestTimeout: plan.timeout,
		// One retry, charged like any request, as the exporter does.
		MaxRetries: 1,
	})
	return c, transport.CloseIdleConnections, err
}

// clockFunc adapts a now function to budget.Clock.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

// fetch makes the requests the journal does not hold yet, paced to each
// key's budget in any sliding hour.
func (e *backfillEnv) fetch(ctx context.Context, plan *backfillPlan, keys []*backfillKey, j *journal, progress *backfillProgress) int {
	if keys[0].ledger.path != "" {
		fmt.Fprintf(e.stderr, "%s: sharing the budget with the exporter through %s\n", backfillCmdName, keys[0].ledger.path)
	}
	var ledgerErr error
	gated := make([]context.Context, len(keys))
	for i, k := range keys {
		gate := func(ctx context.Context) error {
			for {
				if err := ctx.Err(); err != nil {
					return err
				}
				took, err := k.ledger.take(k.window, e.now())
				if err != nil {
					ledgerErr = err
					return err
				}
				if took {
					return nil
				}
				wait := k.window.FreeAt(1).Sub(e.now())
				e.endBar()
				fmt.Fprintf(e.stderr, "%s: %d requests made in the last hour%s; waiting %s for the budget\n", backfillCmdName, k.window.Used(), k.of(), wait.Round(time.Second))
				if err := e.sleep(ctx, wait); err != nil {
					return err
				}
			}
		}
		gated[i] = mintlify.WithGate(ctx, gate)
	}
	made := 0
	for _, task := range progress.tasks {
		k, gctx := keys[plan.keyOf[task.project]], gated[plan.keyOf[task.project]]
		r := mintlify.DateRange{From: monthStart(task.day), To: task.day.AddDate(0, 0, 1), Days: true}
		for {
			kind, offset, ok := progress.nextStep(task)
			if !ok {
				break
			}
			var jp journalPage
			for limited := 0; ; {
				var err error
				jp, err = fetchStep(gctx, k.client, plan, task, r, kind, offset)
				if err == nil {
					break
				}
				if ledgerErr != nil {
					return e.failf(backfillExitError, "%v (give --storage.path='' not to share the budget with the exporter); what was fetched is kept in %s", ledgerErr, j.f.Name())
				}
				if ctx.Err() != nil {
					return e.failf(backfillExitError, "interrupted; %d of %d requests are done and kept in %s: run the same command again to continue", progress.done, progress.total, j.f.Name())
				}
				if isLimited, after, ok := mintlify.IsRateLimited(err); isLimited && limited < maxRateLimitWaits {
					// Someone else (the exporter, another tool) spends the
					// same organization's budget: sit it out.
					limited++
					if !ok {
						after = defaultRateLimitWait
					}
					e.endBar()
					fmt.Fprintf(e.stderr, "%s: the API answered 429 (rate limited); waiting %s\n", backfillCmdName, after.Round(time.Second))
					if err := e.sleep(ctx, after); err != nil {
						return e.failf(backfillExitError, "interrupted; %d of %d requests are done and kept in %s: run the same command again to continue", progress.done, progress.total, j.f.Name())
					}
					continue
				}
				code := backfillExitError
				what := err.Error()
				if mintlify.IsBadRequest(err) {
					code = backfillExitUsage
					what = "the API refused the range " + r.From.Format(mintlify.DayLayout) + " to " + r.To.Format(mintlify.DayLayout) + " (it may not keep history that old): " + what
				}
				return e.failf(code, "project %s, day %s: %s; what was fetched is kept in %s", task.project, task.day.Format(mintlify.DayLayout), what, j.f.Name())
			}
			if err := j.add(jp); err != nil {
				return e.failf(backfillExitError, "writing %s: %v", j.f.Name(), err)
			}
			made++
			progress.record(jp)
			if e.afterPage != nil {
				e.afterPage(made)
			}
		}
		e.showProgress(task, progress.done, progress.total)
	}
	e.endBar()
	return backfillExitOK
}

// fetchStep makes the request of one step of a task: a page of views at
// offset (kind ""), or the month-to-date answer of another counter.
func fetchStep(ctx context.Context, c *mintlify.Client, plan *backfillPlan, task backfillTask, r mintlify.DateRange, kind string, offset int) (journalPage, error) {
	jp := journalPage{Project: task.project, Day: task.day.Format(mintlify.DayLayout), Kind: kind}
	switch kind {
	case kindFeedback:
		page, err := c.FeedbackByPage(ctx, task.project, r, mintlify.MaxFeedbackLimit)
		if err != nil {
			return jp, err
		}
		jp.HasMore = page.HasMore
		jp.Feedback = []journalFeedback{}
		for _, row := range page.Rows {
			jp.Feedback = append(jp.Feedback, journalFeedback{Path: row.Path, ThumbsUp: row.ThumbsUp, ThumbsDown: row.ThumbsDown, Code: row.Code})
		}
	case kindSearches:
		// The total does not depend on how many terms come with it.
		page, err := c.Searches(ctx, task.project, r, 1, "")
		if err != nil {
			return jp, err
		}
		jp.Searches = &page.TotalSearches
	case kindAssistant:
		st, err := c.AssistantCallerStats(ctx, task.project, r)
		if err != nil {
			return jp, err
		}
		jp.Assistant = st
	default:
		page, err := c.Rows(ctx, mintlify.Views, task.project, r, plan.limit(offset), offset)
		if err != nil {
			return jp, err
		}
		jp.Offset, jp.Totals, jp.HasMore = offset, page.Totals, page.HasMore
		if plan.paths > 0 {
			for _, row := range page.Rows {
				jp.Rows = append(jp.Rows, journalRow{Path: row.Path, Human: row.Human, AI: row.AI})
			}
		}
	}
	return jp, nil
}

// showProgress tells that task is done and done of total requests are:
// a line each time, or on a terminal a bar redrawn in place.
func (e *backfillEnv) showProgress(task backfillTask, done, total int) {
	day := task.day.Format(mintlify.DayLayout)
	if !e.tty {
		fmt.Fprintf(e.stderr, "%s: project %s %s done (%d/%d requests)\n", backfillCmdName, task.project, day, done, total)
		return
	}
	const width = 30
	filled := width * done / max(total, 1)
	fmt.Fprintf(e.stderr, "\r[%s%s] %d/%d requests, %s %s\x1b[K", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, task.project, day)
	e.barShown = true
}

// endBar ends the progress bar's line, if one is shown, so that the next
// message starts on a line of its own.
func (e *backfillEnv) endBar() {
	if e.barShown {
		fmt.Fprintln(e.stderr)
		e.barShown = false
	}
}

// backfillWriter is the backfill's name in the shared ledger.
const backfillWriter = "backfill"

// backfillLedger is the exporter's state file the backfill shares the
// key's budget through; path "" shares nothing.
type backfillLedger struct {
	path, fp string
}

// take makes one request from window if it has room, counting the
// requests the state file records for the key by others (the exporter)
// and recording this one there, under the file's lock.
func (l *backfillLedger) take(window *budget.Window, now time.Time) (bool, error) {
	if l.path == "" {
		return window.TryTake(), nil
	}
	var took bool
	err := collector.ShareLedger(l.path, l.fp, backfillWriter, window, now, func() { took = window.TryTake() })
	return took, err
}

// monthStart is the 1st of day's month.
func monthStart(day time.Time) time.Time {
	y, m, _ := day.Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// backfillTask is one project and day.
type backfillTask struct {
	project string
	day     time.Time
}

// backfillProgress is which pages of which task are in the journal.
type backfillProgress struct {
	plan  *backfillPlan
	tasks []backfillTask
	// pages of views of each task in the journal, in offset order, and
	// the other counters' answers.
	pages       map[backfillTask][]journalPage
	extra       map[taskKind]bool
	done, total int
}

// taskKind is one counter other than the views of a task.
type taskKind struct {
	backfillTask
	kind string
}

func newBackfillProgress(plan *backfillPlan, journaled []journalPage) *backfillProgress {
	p := &backfillProgress{plan: plan, pages: map[backfillTask][]journalPage{}, extra: map[taskKind]bool{}}
	for _, id := range plan.projects {
		for d := plan.from; !d.After(plan.to); d = d.AddDate(0, 0, 1) {
			p.tasks = append(p.tasks, backfillTask{id, d})
		}
		p.total += plan.days() * plan.perDay(id)
	}
	for _, jp := range journaled {
		p.record(jp)
	}
	return p
}

func (p *backfillProgress) record(jp journalPage) {
	day, err := time.Parse(mintlify.DayLayout, jp.Day)
	if err != nil {
		return
	}
	t := backfillTask{jp.Project, day}
	if jp.Kind != "" {
		p.extra[taskKind{t, jp.Kind}] = true
	} else {
		p.pages[t] = append(p.pages[t], jp)
	}
	p.done++
}

// nextStep is the task's next request: a page of views at offset (kind
// ""), or another counter; none when the task is done.
func (p *backfillProgress) nextStep(t backfillTask) (kind string, offset int, ok bool) {
	if offset, done := p.next(t); !done {
		return "", offset, true
	}
	for _, kind := range p.plan.extra[t.project] {
		if !p.extra[taskKind{t, kind}] {
			return kind, 0, true
		}
	}
	return "", 0, false
}

// next is the offset of the task's next page, or done.
func (p *backfillProgress) next(t backfillTask) (offset int, done bool) {
	pages := p.pages[t]
	if len(pages) == 0 {
		return 0, false
	}
	last := pages[len(pages)-1]
	offset = last.Offset + p.plan.limit(last.Offset)
	return offset, !last.HasMore || p.plan.paths == 0 || offset >= p.plan.paths
}

// requestsLeft is at most how many requests the tasks of the projects
// of (nil: all) still need.
func (p *backfillProgress) requestsLeft(of func(id string) bool) int {
	n := 0
	for _, t := range p.tasks {
		if of != nil && !of(t.project) {
			continue
		}
		offset, done := p.next(t)
		if !done {
			n += p.plan.pagesPerDay() - offset/mintlify.MaxPageSize
		}
		for _, kind := range p.plan.extra[t.project] {
			if !p.extra[taskKind{t, kind}] {
				n++
			}
		}
	}
	return n
}

// renderBackfill writes the journal's pages as the counter series.
func renderBackfill(w io.Writer, plan *backfillPlan, pages []journalPage) error {
	site := newFamily("mintlify_site_page_views", "Views of the whole site since the start of the UTC calendar month, by traffic (human, ai, and other when the total exceeds human + ai), at the end of each day; written by mintlify_exporter backfill.")
	page := newFamily("mintlify_page_views", "Views of one documentation page since the start of the UTC calendar month, by traffic (human or ai), at the end of each day; written by mintlify_exporter backfill.")
	feedback := newFamily("mintlify_page_feedback", "Feedback entries on one page since the start of the UTC calendar month, by kind: thumbs_up, thumbs_down, code_snippet; only the 100 pages with the most feedback that month-to-date, at the end of each day; written by mintlify_exporter backfill.")
	searches := newFamily("mintlify_searches", "Search events on the site since the start of the UTC calendar month (all terms), at the end of each day; written by mintlify_exporter backfill.")
	assistant := newFamily("mintlify_assistant_queries", "Assistant queries since the start of the UTC calendar month, by caller: web, api, other, at the end of each day; written by mintlify_exporter backfill.")
	byTask := map[backfillTask][]journalPage{}
	extra := map[taskKind]journalPage{}
	for _, jp := range pages {
		day, err := time.Parse(mintlify.DayLayout, jp.Day)
		if err != nil {
			return fmt.Errorf("journal page of day %q", jp.Day)
		}
		t := backfillTask{jp.Project, day}
		if jp.Kind != "" {
			extra[taskKind{t, jp.Kind}] = jp
			continue
		}
		byTask[t] = append(byTask[t], jp)
	}
	with := func(pairs ...labelPair) []labelPair { return append(pairs, plan.labels...) }
	for _, id := range plan.projects {
		label := id
		if name := plan.names[id]; name != "" {
			label = name
		}
		for d := plan.from; !d.After(plan.to); d = d.AddDate(0, 0, 1) {
			tp := byTask[backfillTask{id, d}]
			if len(tp) == 0 {
				return fmt.Errorf("no data for project %s, day %s", id, d.Format(mintlify.DayLayout))
			}
			end := d.AddDate(0, 0, 1)
			t := tp[0].Totals
			site.add(with(labelPair{"project", label}, labelPair{"traffic", trafficHuman}), end, t.Human)
			site.add(with(labelPair{"project", label}, labelPair{"traffic", trafficAI}), end, t.AI)
			if other := t.Total - t.Human - t.AI; other > 0 {
				site.add(with(labelPair{"project", label}, labelPair{"traffic", trafficOther}), end, other)
			}
			seen := map[string]bool{}
			n := 0
			for _, jp := range tp {
				for _, r := range jp.Rows {
					if n >= plan.maxPaths(id) || seen[r.Path] || !plan.keep(id, r.Path) {
						continue
					}
					seen[r.Path] = true
					n++
					page.add(with(labelPair{"path", r.Path}, labelPair{"project", label}, labelPair{"traffic", trafficHuman}), end, r.Human)
					page.add(with(labelPair{"path", r.Path}, labelPair{"project", label}, labelPair{"traffic", trafficAI}), end, r.AI)
				}
			}
			for _, kind := range plan.extra[id] {
				jp, ok := extra[taskKind{backfillTask{id, d}, kind}]
				if !ok {
					return fmt.Errorf("no %s data for project %s, day %s", kind, id, d.Format(mintlify.DayLayout))
				}
				switch {
				case kind == kindFeedback:
					seen := map[string]bool{}
					for _, r := range jp.Feedback {
						if seen[r.Path] || !plan.keep(id, r.Path) {
							continue
						}
						seen[r.Path] = true
						for _, kv := range []struct {
							kind string
							v    float64
						}{{"thumbs_up", r.ThumbsUp}, {"thumbs_down", r.ThumbsDown}, {"code_snippet", r.Code}} {
							feedback.add(with(labelPair{"kind", kv.kind}, labelPair{"path", r.Path}, labelPair{"project", label}), end, kv.v)
						}
					}
				case kind == kindSearches && jp.Searches != nil:
					searches.add(with(labelPair{"project", label}), end, *jp.Searches)
				case kind == kindAssistant && jp.Assistant != nil:
					a := jp.Assistant
					assistant.add(with(labelPair{"caller", "web"}, labelPair{"project", label}), end, a.Web)
					assistant.add(with(labelPair{"caller", "api"}, labelPair{"project", label}), end, a.API)
					assistant.add(with(labelPair{"caller", "other"}, labelPair{"project", label}), end, a.Other)
				}
			}
		}
	}
	return renderOpenMetrics(w, site, page, feedback, searches, assistant)
}
