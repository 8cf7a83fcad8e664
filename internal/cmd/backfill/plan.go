package backfill

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

type backfillPlan struct {
	from, to   time.Time         // first and last day, midnight UTC
	projects   []string          // sorted, without duplicates
	names      map[string]string // project label by id, where it is not the id
	paths      int               // 0: site totals only
	labels     []labelPair
	keys       []keyRef
	keyOf      map[string]int
	configured map[string]config.Project
	apiURL     string
	timeout    time.Duration
	extra      map[string][]string
	global     *config.Global
	// walkPages: each project's longest journaled walk, the best guess of what the next ones cost.
	maxPages  int
	walkPages map[string]int
}

// extraCollectors: every collector with month-to-date counters but the page views, in output order.
var extraCollectors = func() []string {
	var names []string
	for _, k := range collector.All {
		if k.Windows.HasMonth() && k.Name != collector.Views {
			names = append(names, k.Name)
		}
	}
	return names
}()

func (p *backfillPlan) label(id string) string { return cmp.Or(p.names[id], id) }

// keyRef: index -1 is the --mintlify.api-key-file or MINTLIFY_API_KEY key, else keys[index] of the configuration.
type keyRef struct {
	name   string // the configuration's name for it; "" for the flag's
	index  int
	budget int // requests per hour
}

func (p *backfillPlan) keep(id, path string) bool {
	if !mintlify.PathLabelOK(path) { // the exporter's rule
		return false
	}
	pr, ok := p.configured[id]
	return !ok || pr.PathAllowed(path)
}

func (p *backfillPlan) days() int { return int(p.to.Sub(p.from)/(24*time.Hour)) + 1 }

// pagesPerDay: a day costs its whole month-to-date walk, so the most viewed paths are kept whatever order
// the API serves them in; before any journaled walk the site is taken to have --paths paths ("at least").
func (p *backfillPlan) pagesPerDay(id string) int {
	if p.paths == 0 {
		return 1
	}
	if n := p.walkPages[id]; n > 0 {
		return n
	}
	return max(1, (p.paths+mintlify.MaxPageSize-1)/mintlify.MaxPageSize)
}

func (p *backfillPlan) knownSites(sites map[string]int) {
	for _, id := range p.projects {
		if n := sites[id]; n > 0 && p.walkPages[id] == 0 {
			p.walkPages[id] = n
		}
	}
}

// limit: one row for the site totals alone, else full pages, as the walk pages by offset.
func (p *backfillPlan) limit() int {
	if p.paths == 0 {
		return 1
	}
	return mintlify.MaxPageSize
}

func (p *backfillPlan) walkOptions(id string) mintlify.WalkOptions {
	o := mintlify.WalkOptions{Keep: func(path string) bool { return p.keep(id, path) }, MaxRows: p.paths, MaxPages: p.maxPages}
	if pr, ok := p.configured[id]; ok && pr.MaxPaths > 0 {
		o.MaxRows = min(p.paths, pr.MaxPaths)
	}
	return o
}

// args: a journal resumes only a run of the same.
func (p *backfillPlan) args() string {
	var b strings.Builder
	// walk=full: the journal holds whole walks, not the first --paths rows of development builds before 0.1.0.
	fmt.Fprintf(&b, "walk=full from=%s to=%s paths=%d url=%s", p.from.Format(mintlify.DayLayout), p.to.Format(mintlify.DayLayout), p.paths, p.apiURL)
	for _, id := range p.projects {
		fmt.Fprintf(&b, " project=%q", id)
		if name := p.names[id]; name != "" {
			fmt.Fprintf(&b, " name=%q", name)
		}
		if names := p.extra[id]; len(names) > 0 {
			fmt.Fprintf(&b, " counters=%s", strings.Join(names, ","))
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

func checkBackfillArgs(o *backfillOptions, now time.Time, cfg *config.Config) (*backfillPlan, error) {
	p := &backfillPlan{names: map[string]string{}, keyOf: map[string]int{}, extra: map[string][]string{}, walkPages: map[string]int{}}
	if err := p.setDays(o, now); err != nil {
		return nil, err
	}
	projects := p.fromFlags
	if cfg != nil {
		projects = func(o *backfillOptions) error { return p.fromConfig(o, cfg) }
	}
	for _, step := range []func(*backfillOptions) error{projects, p.setNames, p.setPaths, p.setLabels} {
		if err := step(o); err != nil {
			return nil, err
		}
	}
	if err := cli.CheckRequestTimeout(p.timeout); err != nil {
		return nil, err
	}
	if cfg == nil {
		if err := config.CheckAPIURL(o.APIURL); err != nil {
			return nil, fmt.Errorf("--mintlify.api-url %w", err)
		}
		if err := cli.CheckAPIURL(o.APIURL); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *backfillPlan) setDays(o *backfillOptions, now time.Time) error {
	yesterday := now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
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
	var err error
	if p.from, err = day("--from", o.from); err != nil {
		return err
	}
	p.to = yesterday
	if o.to != "" {
		if p.to, err = day("--to", o.to); err != nil {
			return err
		}
	}
	if p.from.After(p.to) {
		return fmt.Errorf("--from %s is after --to %s", p.from.Format(mintlify.DayLayout), p.to.Format(mintlify.DayLayout))
	}
	return nil
}

func (p *backfillPlan) fromFlags(o *backfillOptions) error {
	if len(o.ProjectIDs) == 0 {
		return errors.New("no project: give --mintlify.project-id (or set MINTLIFY_PROJECT_ID), or --config.file")
	}
	for _, id := range o.ProjectIDs {
		if err := mintlify.CheckID(id); err != nil {
			return fmt.Errorf("--mintlify.project-id: %w", err)
		}
		if !slices.Contains(p.projects, id) {
			p.projects = append(p.projects, id)
		}
	}
	if o.budget < 1 {
		return fmt.Errorf("--budget must be at least 1, got %d", o.budget)
	}
	p.keys = []keyRef{{index: -1, budget: o.budget}}
	for _, id := range p.projects {
		p.keyOf[id] = 0
		p.extra[id] = o.extraCollectors(nil)
	}
	p.apiURL, p.timeout = o.APIURL, o.RequestTimeout
	return nil
}

func (p *backfillPlan) setNames(o *backfillOptions) error {
	slices.Sort(p.projects)
	for _, pn := range o.projectNames {
		id, name, ok := strings.Cut(pn, "=")
		switch {
		case !ok || name == "" || !utf8.ValidString(name):
			return fmt.Errorf("--project-name %q: want ID=NAME, NAME the project's name in the exporter's configuration", pn)
		case !slices.Contains(p.projects, id):
			return fmt.Errorf("--project-name %q: %s is not one of the --mintlify.project-id ids", pn, id)
		case p.names[id] != "":
			return fmt.Errorf("--project-name given twice for %s", id)
		}
		p.names[id] = name
	}
	return nil
}

func (p *backfillPlan) setPaths(o *backfillOptions) error {
	switch {
	case o.siteOnly && o.pathsSet:
		return errors.New("give either --paths or --site-only, not both")
	case o.siteOnly:
		p.paths = 0
	case o.paths < 1:
		return fmt.Errorf("--paths must be at least 1 (or use --site-only), got %d", o.paths)
	default:
		p.paths = o.paths
	}
	return nil
}

func (p *backfillPlan) setLabels(o *backfillOptions) error {
	seen := map[string]bool{}
	for _, l := range o.labels {
		name, value, ok := strings.Cut(l, "=")
		switch {
		case !ok || !labelName.MatchString(name):
			return fmt.Errorf("--label %q: want NAME=VALUE with a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)", l)
		case strings.HasPrefix(name, "__"):
			return fmt.Errorf("--label %q: names starting with __ are reserved by Prometheus", l)
		case slices.Contains(seriesLabels, name):
			return fmt.Errorf("--label %q: %s is a label of the counters themselves", l, name)
		case value == "":
			return fmt.Errorf("--label %q: an empty value is no label in Prometheus", l)
		case !utf8.ValidString(value):
			return fmt.Errorf("--label %q: the value is not valid UTF-8", l)
		case seen[name]:
			return fmt.Errorf("--label %s given twice", name)
		}
		seen[name] = true
		p.labels = append(p.labels, labelPair{name, value})
	}
	slices.SortFunc(p.labels, func(a, b labelPair) int { return strings.Compare(a.name, b.name) })
	return nil
}

var seriesLabels = []string{"project", "path", "traffic", "kind", "caller"}

// extraCollectors: a project's configured collectors when it lists some, as the exporter does, else the --collector.NAME flags.
func (o *backfillOptions) extraCollectors(configured []string) []string {
	var names []string
	for _, k := range extraCollectors {
		if len(configured) > 0 && slices.Contains(configured, k) || len(configured) == 0 && o.collectors[k] != nil && *o.collectors[k] {
			names = append(names, k)
		}
	}
	return names
}

func (p *backfillPlan) fromConfig(o *backfillOptions, cfg *config.Config) error {
	switch {
	case len(o.projectNames) > 0:
		return errors.New("--project-name and --config.file: the project labels are the names in the configuration")
	case o.KeyFile != "":
		return errors.New("--mintlify.api-key-file and --config.file: the keys are those of the configuration (api_key_file or api_key_env)")
	case o.APIURLSet:
		return errors.New("--mintlify.api-url and --config.file: the API URL is the configuration's global.api_url")
	case o.budgetSet && o.budget < 1:
		return fmt.Errorf("--budget must be at least 1, got %d", o.budget)
	}
	selected := cfg.Projects
	if len(o.ProjectIDs) > 0 {
		selected = nil
		for _, ref := range o.ProjectIDs {
			i := slices.IndexFunc(cfg.Projects, func(pr config.Project) bool { return pr.ID == ref || pr.Name == ref })
			if i < 0 {
				var known []string
				for _, pr := range cfg.Projects {
					known = append(known, pr.Name)
				}
				return fmt.Errorf("--mintlify.project-id %q is neither the id nor the name of a project in %s (names: %s)", ref, o.ConfigFile, strings.Join(known, ", "))
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
				return fmt.Errorf("%s: project %s uses no known key", o.ConfigFile, pr.Name)
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
		p.extra[pr.ID] = o.extraCollectors(pr.Collectors)
	}
	p.apiURL, p.maxPages = cfg.Global.APIURL, cfg.Global.MaxPages
	p.global = &cfg.Global
	p.timeout = time.Duration(cfg.Global.RequestTimeout)
	if o.TimeoutSet {
		p.timeout = o.RequestTimeout
	}
	return nil
}

// settings: top lists as long as the exporter's; 1 for a collector whose top lists have no counter (search terms).
func (p *backfillPlan) settings(name string, keep func(string) bool) spec.Settings {
	n := 1
	if k, _ := collector.Lookup(name); k.TopN > 0 {
		n = k.TopN
		if p.global != nil {
			n = p.global.TopN(name)
		}
	}
	return spec.Settings{Keep: keep, TopN: n}
}
