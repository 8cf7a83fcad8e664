// Package config reads and checks the exporter's YAML configuration.
//
// Decoding is strict: an unknown or misspelt field is an error, because a
// silently ignored "pagesize" would let the exporter run with settings the
// operator did not ask for and burn the shared API budget. Every error from
// a file has its line: the YAML decoder's own message with that line of
// the file, or validation's with the setting's name (errors.go).
//
// A *Config is not modified once Parse, LoadFile or Single has returned
// it: a reload builds a new one and hands it to the exporter
// (engine.Engine.Apply), so readers may keep the pointer for one
// scrape or one sweep without locking.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Config is the whole file.
type Config struct {
	Global   Global    `yaml:"global"`
	Keys     []Key     `yaml:"keys"`
	Projects []Project `yaml:"projects"`

	// Where the configuration came from, for the errors found after
	// Parse (reading a key, checking its type): the file LoadFile read,
	// and the line of each key's api_key_file or api_key_env (keyLines[i]
	// for Keys[i]). Empty for a configuration built in code (Single).
	file     string
	keyLines []int
	// flags names the settings a configuration built from the command
	// line (Single) took from flags; nil for a file's.
	flags FlagNames
}

// FlagNames are the command-line flags (and environment variables) that
// set the settings of a configuration without a file, by the setting's
// path as the file would spell it ("projects[0].id",
// "global.collector_top_n.conversations"; a list, "projects[0].windows",
// for each of its elements). Validation names a setting so when it has
// one, never the file's field that the user did not write.
type FlagNames map[string]string

// flag is the flag that set the setting at path at ("" when none): the
// path's own, or its list's ("projects[0].windows" for
// "projects[0].windows[1]").
func (f FlagNames) flag(at string) string {
	if name, ok := f[at]; ok {
		return name
	}
	if i := strings.LastIndexByte(at, '['); i > 0 && strings.HasSuffix(at, "]") {
		return f[at[:i]]
	}
	return ""
}

// Global holds the settings shared by every key and project.
type Global struct {
	// APIURL is the base URL of the admin API, without a trailing slash.
	APIURL string `yaml:"api_url"`
	// MinRefreshInterval is the shortest time between two analytics sweeps
	// of a project; the budget may stretch it.
	MinRefreshInterval Duration `yaml:"min_refresh_interval"`
	// MaxRefreshInterval caps how stale data may get before the scheduler
	// refreshes anyway, even at the cost of other projects on the key.
	MaxRefreshInterval Duration `yaml:"max_refresh_interval"`
	// MaxAge is how old cached data may be before up is 0 and the page
	// series are dropped, so dashboards show a gap rather than old numbers.
	MaxAge          Duration `yaml:"max_age"`
	PageSize        int      `yaml:"page_size"`
	PageConcurrency int      `yaml:"page_concurrency"`
	// MaxPages bounds one sweep so a runaway site cannot spend the budget.
	MaxPages        int      `yaml:"max_pages"`
	RequestTimeout  Duration `yaml:"request_timeout"`
	JobPollInterval Duration `yaml:"job_poll_interval"`
	// JobRetention is how long a finished job stays exported.
	JobRetention   Duration `yaml:"job_retention"`
	JobConcurrency int      `yaml:"job_concurrency"`
	// TrackedJobsFile is where the `jobs` command appends job ids. A
	// relative path is relative to the config file.
	TrackedJobsFile string `yaml:"tracked_jobs_file,omitempty"`
	// CollectorWeights split each key's budget between the analytics
	// collectors that are enabled under it.
	CollectorWeights CollectorWeights `yaml:"collector_weights"`
	// CollectorTopN and CollectorLookBack are the collectors' own
	// settings (spec.Collector.TopN, LookBack) by the collector's name; a
	// collector left out keeps the table's default. See TopN, LookBack.
	CollectorTopN     map[string]int      `yaml:"collector_top_n,omitempty"`
	CollectorLookBack map[string]Duration `yaml:"collector_look_back,omitempty"`
	// SearchTopN and FeedbackLookBack are two collectors' settings under
	// the keys 0.1.0 gave them, which their rows name (spec.Collector.TopNKey,
	// LookBackKey); their defaults are the rows'.
	SearchTopN       int      `yaml:"search_top_n"`
	FeedbackLookBack Duration `yaml:"feedback_look_back"`
}

// MaxLookBack bounds every look-back: each open entry of it is read on
// each refresh.
const MaxLookBack = Duration(366 * 24 * time.Hour)

// MinLookBack is the shortest look-back: a day.
const MinLookBack = Duration(24 * time.Hour)

// MaxRequestTimeout bounds request_timeout and --mintlify.request-timeout:
// one API request (a page of at most 1,000 rows) that takes longer is
// not coming back, and a refresh or a backfill should not wait on it.
const MaxRequestTimeout = time.Hour

// MinRequestTimeout is the shortest request_timeout and
// --mintlify.request-timeout: less cannot get an answer over the network.
const MinRequestTimeout = time.Second

// MaxTopN bounds every top list: each entry is a series a project.
const MaxTopN = 100

// TopN is the length of the named collector's top lists (the table's
// default when the configuration does not say), 0 for a collector
// without them.
func (g *Global) TopN(name string) int {
	k, ok := collector.Lookup(name)
	if !ok || k.TopN == 0 {
		return 0
	}
	if p, ok := g.ownKey(k.TopNKey).(*int); ok {
		return *p
	}
	if n, ok := g.CollectorTopN[name]; ok {
		return n
	}
	return k.TopN
}

// LookBack is how far back the named snapshot collector looks (the
// table's default when the configuration does not say), 0 for a
// collector without a look-back.
func (g *Global) LookBack(name string) time.Duration {
	k, ok := collector.Lookup(name)
	if !ok || k.LookBack == 0 {
		return 0
	}
	if p, ok := g.ownKey(k.LookBackKey).(*Duration); ok {
		return time.Duration(*p)
	}
	if d, ok := g.CollectorLookBack[name]; ok {
		return time.Duration(d)
	}
	return k.LookBack
}

// SetTopN sets the named collector's top lists' length, where TopN
// reads it (for the command line's --collector.NAME.top-n).
func (g *Global) SetTopN(name string, n int) {
	k, _ := collector.Lookup(name)
	if p, ok := g.ownKey(k.TopNKey).(*int); ok {
		*p = n
		return
	}
	g.CollectorTopN = maps.Clone(g.CollectorTopN)
	if g.CollectorTopN == nil {
		g.CollectorTopN = map[string]int{}
	}
	g.CollectorTopN[name] = n
}

// SetLookBack sets the named collector's look-back, where LookBack
// reads it (for the command line's --collector.NAME.look-back).
func (g *Global) SetLookBack(name string, d time.Duration) {
	k, _ := collector.Lookup(name)
	if p, ok := g.ownKey(k.LookBackKey).(*Duration); ok {
		*p = Duration(d)
		return
	}
	g.CollectorLookBack = maps.Clone(g.CollectorLookBack)
	if g.CollectorLookBack == nil {
		g.CollectorLookBack = map[string]Duration{}
	}
	g.CollectorLookBack[name] = Duration(d)
}

// ownKey is a pointer to the field of g whose key is key (a row's
// TopNKey or LookBackKey), nil when key is empty or no field's.
func (g *Global) ownKey(key string) any {
	v := reflect.ValueOf(g).Elem()
	for i := range v.NumField() {
		if key != "" && strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0] == key {
			return v.Field(i).Addr().Interface()
		}
	}
	return nil
}

// AnalyticsCollectors are the collectors that draw on the analytics
// budget, in the order they are documented (collector.All).
var AnalyticsCollectors = collector.Names()

// CollectorWeights is the relative share of a key's budget each analytics
// collector gets when several are enabled, by the collector's name. A
// file sets the weights it wants (the others keep their defaults), and a
// name that is not a collector is refused like an unknown field.
type CollectorWeights map[string]float64

// defaultWeights are the collectors' own default weights.
func defaultWeights() CollectorWeights {
	w := CollectorWeights{}
	for _, k := range collector.All {
		w[k.Name] = k.Weight
	}
	return w
}

// Of returns the weight of the named collector, 0 for an unknown name.
func (w CollectorWeights) Of(name string) float64 { return w[name] }

// UnmarshalYAML sets the weights the file gives on top of the current
// ones (the defaults), into a new map: the defaults are never changed.
func (w *CollectorWeights) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.MappingNode {
		return nodeErrorf(node, "expected a mapping of collector names to weights")
	}
	out := maps.Clone(*w)
	if out == nil {
		out = CollectorWeights{}
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		name, value := node.Content[i], node.Content[i+1]
		if _, ok := collector.Lookup(name.Value); !ok {
			return nodeErrorf(node, "unknown field %q (the collectors are %s)", name.Value, strings.Join(collector.Names(), ", "))
		}
		var f float64
		if err := value.Decode(&f); err != nil || value.Kind != yaml.ScalarNode {
			return nodeErrorf(value, "expected a number, got %q", value.Value)
		}
		out[name.Value] = f
	}
	*w = out
	return nil
}

// Key is one API key, which is one organization and so one hourly budget.
type Key struct {
	// Name is the `key` label value; the key itself is never exported.
	Name       string `yaml:"name"`
	APIKeyEnv  string `yaml:"api_key_env,omitempty"`
	APIKeyFile string `yaml:"api_key_file,omitempty"`
	// BudgetPerHour is the organization's analytics limit (100 upstream).
	BudgetPerHour int `yaml:"budget_per_hour"`
	// Reserve is left free for other users of the organization's key.
	Reserve int `yaml:"reserve"`
	// Share is this replica's fraction of what remains, for several
	// exporters (e.g. an HA pair) on one key.
	Share float64 `yaml:"share"`
}

// Project is one Mintlify project to poll.
type Project struct {
	ID string `yaml:"id"`
	// Name is the `project` label; it defaults to ID.
	Name string `yaml:"name"`
	// Key names the Key to use; empty means the only key.
	Key string `yaml:"key,omitempty"`
	// Windows are rolling look-back periods exported as gauges on top of
	// the month-to-date counters; empty (the default) means none.
	Windows      []Window `yaml:"windows,omitempty"`
	IncludePaths []Regexp `yaml:"include_paths,omitempty"`
	ExcludePaths []Regexp `yaml:"exclude_paths,omitempty"`
	// MaxPaths bounds the page series of the month's counters and of each
	// window, the most viewed first; 0 means no limit.
	MaxPaths int `yaml:"max_paths"`
	// Jobs are agent job ids to track.
	Jobs []string `yaml:"jobs,omitempty"`
	// Collectors lists the analytics collectors to run for this project;
	// empty means those enabled on the command line (--collector.*).
	Collectors []string `yaml:"collectors,omitempty"`
}

// Defaults. They are exported so the command line help and the docs can
// quote them instead of repeating the numbers.
var (
	DefaultGlobal = withRowDefaults(Global{
		APIURL:             mintlify.DefaultBaseURL,
		MinRefreshInterval: Duration(time.Minute),
		MaxRefreshInterval: Duration(6 * time.Hour),
		MaxAge:             Duration(3 * time.Hour),
		PageSize:           mintlify.MaxPageSize,
		PageConcurrency:    mintlify.DefaultWalkConcurrency,
		MaxPages:           mintlify.DefaultWalkMaxPages,
		RequestTimeout:     Duration(mintlify.DefaultRequestTimeout),
		JobPollInterval:    Duration(time.Minute),
		JobRetention:       Duration(24 * time.Hour),
		JobConcurrency:     4,
		CollectorWeights:   defaultWeights(),
	})
	DefaultKey = Key{
		BudgetPerHour: 100,
		Reserve:       10,
		Share:         1,
	}
	// Projects export month-to-date counters; rolling windows are opt-in.
	DefaultProject = Project{
		MaxPaths: 5000,
	}
)

// withRowDefaults is g with the rows' defaults in the fields of the keys
// the rows name (SearchTopN, FeedbackLookBack).
func withRowDefaults(g Global) Global {
	for _, k := range collector.All {
		if p, ok := g.ownKey(k.TopNKey).(*int); ok {
			*p = k.TopN
		}
		if p, ok := g.ownKey(k.LookBackKey).(*Duration); ok {
			*p = Duration(k.LookBack)
		}
	}
	return g
}

// These types have the same fields but no UnmarshalYAML, so that the
// methods below can fill in defaults and then let yaml decode over them
// without recursing. yaml's messages name them ("field pagesize not found
// in type config.global"), so they are named after the file's sections.
type (
	topLevel Config
	global   Global
	key      Key
	project  Project
)

// UnmarshalYAML sets the defaults, decodes, then validates the whole file:
// cross-references (a project's key, duplicate names) can only be checked
// once every list is complete.
//
// It takes the older func(any) error form on purpose: that form decodes
// with the caller's decoder, which keeps KnownFields(true) in force for the
// nested structs; the *yaml.Node form would decode them leniently.
func (c *Config) UnmarshalYAML(unmarshal func(any) error) error {
	*c = Config{Global: DefaultGlobal}
	if err := unmarshal((*topLevel)(c)); err != nil {
		return err
	}
	return c.validate()
}

// UnmarshalYAML applies DefaultGlobal to the fields the file leaves out.
func (g *Global) UnmarshalYAML(unmarshal func(any) error) error {
	*g = DefaultGlobal
	g.CollectorWeights = maps.Clone(DefaultGlobal.CollectorWeights)
	return unmarshal((*global)(g))
}

// UnmarshalYAML applies DefaultKey to the fields the file leaves out.
func (k *Key) UnmarshalYAML(unmarshal func(any) error) error {
	*k = DefaultKey
	return unmarshal((*key)(k))
}

// UnmarshalYAML applies DefaultProject to the fields the file leaves out.
func (p *Project) UnmarshalYAML(unmarshal func(any) error) error {
	*p = DefaultProject
	p.Windows = append([]Window(nil), DefaultProject.Windows...) // never share the default's array
	return unmarshal((*project)(p))
}

// errEmpty is returned for a file with no settings at all; yaml would
// otherwise decode it into a zero Config and report a dozen range errors.
var errEmpty = errors.New("the configuration is empty: at least one key and one project are required")

// Parse decodes and validates a configuration. Fields the file leaves out
// get the Default* values.
func Parse(data []byte) (*Config, error) {
	// First pass: the bare tree, for the checks yaml does not do (empty
	// file, several documents, top level not a mapping) and for the line
	// numbers of validation errors.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errEmpty
		}
		return nil, located(err, data, nil)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, located(err, data, nil)
		}
		return nil, fmt.Errorf("line %d: the file holds several YAML documents (---); put everything in one", extra.Line)
	}
	if len(doc.Content) == 0 {
		return nil, errEmpty
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return nil, errEmpty
	}
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: the top level must be a mapping with global, keys and projects", top.Line)
	}

	// yaml drops null list entries ("- " with nothing after it), which
	// would shift every later index in our messages; refuse them.
	for i := 0; i+1 < len(top.Content); i += 2 {
		if list := top.Content[i+1]; list.Kind == yaml.SequenceNode {
			for j, e := range list.Content {
				if e.Kind == yaml.ScalarNode && e.Tag == "!!null" {
					return nil, fmt.Errorf("line %d: %s[%d] is empty", e.Line, top.Content[i].Value, j)
				}
			}
		}
	}

	// Second pass: the strict decode into Config.
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	c := &Config{}
	if err := strict.Decode(c); err != nil {
		return nil, located(err, data, top)
	}
	lines := settingLines(top)
	c.keyLines = make([]int, len(c.Keys))
	for i, k := range c.Keys {
		field := "api_key_env"
		if k.APIKeyFile != "" {
			field = "api_key_file"
		}
		c.keyLines[i] = lines.of(fmt.Sprintf("keys[%d].%s", i, field))
	}
	return c, nil
}

// LoadFile reads and parses a file. Relative api_key_file and
// tracked_jobs_file paths are taken relative to the file's directory, as
// Prometheus does, so the exporter behaves the same whatever its working
// directory.
//
// The file is read by readBounded: regular files only, at most
// MaxConfigFileSize bytes, within FileReadTimeout.
func LoadFile(path string) (*Config, error) {
	data, err := readBounded(path, "config file", MaxConfigFileSize)
	if err != nil {
		return nil, err
	}
	c, err := Parse(data)
	if err != nil {
		return nil, prefixEach(path, err)
	}
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	c.file = path
	c.Global.TrackedJobsFile = rel(c.Global.TrackedJobsFile)
	for i := range c.Keys {
		c.Keys[i].APIKeyFile = rel(c.Keys[i].APIKeyFile)
	}
	return c, nil
}

// prefixEach puts "path: " before each of the joined errors, so that every
// line of the message says where it is.
func prefixEach(path string, err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return fmt.Errorf("%s: %w", path, err)
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, fmt.Errorf("%s: %w", path, e))
	}
	return errors.Join(out...)
}

// Single builds the configuration of the flag-only mode: one key named
// "default" and one project, everything else at its default. It goes
// through the same validation as a file so both modes accept the same
// values. apiURL may be empty for the default. flags names the flags
// that set its settings, for the errors of this validation and of
// Validate (nil: the file's names).
func Single(projectID, apiURL, keyEnv, keyFile string, flags FlagNames) (*Config, error) {
	c := &Config{Global: DefaultGlobal, flags: flags}
	if apiURL != "" {
		c.Global.APIURL = apiURL
	}
	k := DefaultKey
	k.Name = "default"
	if keyFile == "" {
		k.APIKeyEnv = keyEnv
	} else {
		k.APIKeyFile = keyFile
	}
	p := DefaultProject
	p.ID = projectID
	p.Windows = append([]Window(nil), DefaultProject.Windows...)
	c.Keys = []Key{k}
	c.Projects = []Project{p}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// KeyName is the name of the key the project uses: its own `key`, or the
// only key when it has none (validation guarantees there is one then).
func (p Project) KeyName(c *Config) string {
	if p.Key != "" {
		return p.Key
	}
	if len(c.Keys) == 1 {
		return c.Keys[0].Name
	}
	return ""
}

// PathAllowed reports whether a page path is exported: it matches one of
// include_paths (or there are none) and none of exclude_paths. Exclusion
// wins so a broad include can be trimmed without rewriting it.
func (p Project) PathAllowed(path string) bool {
	for _, re := range p.ExcludePaths {
		if re.MatchString(path) {
			return false
		}
	}
	if len(p.IncludePaths) == 0 {
		return true
	}
	for _, re := range p.IncludePaths {
		if re.MatchString(path) {
			return true
		}
	}
	return false
}
