// Package config reads and checks the exporter's YAML configuration. Decoding is strict: a misspelt
// field silently ignored would run settings nobody asked for. A *Config is never modified once
// returned (a reload builds a new one), so readers keep the pointer without locking.
package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
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

	// file and keyLines locate the errors found after Parse (reading a key); empty for Single's.
	file     string
	keyLines []int
	flags    FlagNames
}

// FlagNames maps a setting's path ("projects[0].id") to the flag that set it, so errors name the flag the user wrote.
type FlagNames map[string]string

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
	APIURL             string   `yaml:"api_url"`
	MinRefreshInterval Duration `yaml:"min_refresh_interval"`
	MaxRefreshInterval Duration `yaml:"max_refresh_interval"`
	// MaxAge: older data drops the page series, so dashboards show a gap rather than old numbers.
	MaxAge            Duration            `yaml:"max_age"`
	PageSize          int                 `yaml:"page_size"`
	PageConcurrency   int                 `yaml:"page_concurrency"`
	MaxPages          int                 `yaml:"max_pages"`
	RequestTimeout    Duration            `yaml:"request_timeout"`
	JobPollInterval   Duration            `yaml:"job_poll_interval"`
	JobRetention      Duration            `yaml:"job_retention"`
	JobConcurrency    int                 `yaml:"job_concurrency"`
	TrackedJobsFile   string              `yaml:"tracked_jobs_file,omitempty"`
	CollectorWeights  CollectorWeights    `yaml:"collector_weights"`
	CollectorTopN     map[string]int      `yaml:"collector_top_n,omitempty"`
	CollectorLookBack map[string]Duration `yaml:"collector_look_back,omitempty"`
	// SearchTopN and FeedbackLookBack keep the keys 0.1.0 gave two collectors' settings.
	SearchTopN       int      `yaml:"search_top_n"`
	FeedbackLookBack Duration `yaml:"feedback_look_back"`
}

// MaxLookBack bounds every look-back: each open entry of it is read on each refresh.
const MaxLookBack = Duration(366 * 24 * time.Hour)

// MinLookBack is the shortest look-back: a day.
const MinLookBack = Duration(24 * time.Hour)

// MaxRequestTimeout: a request (a page of at most 1,000 rows) that takes longer is not coming back.
const MaxRequestTimeout = time.Hour

// MinRequestTimeout: less cannot get an answer over the network.
const MinRequestTimeout = time.Second

// MaxTopN bounds every top list: each entry is a series a project.
const MaxTopN = 100

// TopN is the named collector's top list length (its default when unset), 0 for none.
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

// LookBack is the named snapshot collector's look-back (its default when unset), 0 for none.
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

// SetTopN sets the named collector's top list length, for --collector.NAME.top-n.
func (g *Global) SetTopN(name string, n int) {
	k, _ := collector.Lookup(name)
	if p, ok := g.ownKey(k.TopNKey).(*int); ok {
		*p = n
		return
	}
	g.CollectorTopN = maps.Collect(maps.All(g.CollectorTopN)) // a copy, never nil
	g.CollectorTopN[name] = n
}

// SetLookBack sets the named collector's look-back, for --collector.NAME.look-back.
func (g *Global) SetLookBack(name string, d time.Duration) {
	k, _ := collector.Lookup(name)
	if p, ok := g.ownKey(k.LookBackKey).(*Duration); ok {
		*p = Duration(d)
		return
	}
	g.CollectorLookBack = maps.Collect(maps.All(g.CollectorLookBack))
	g.CollectorLookBack[name] = Duration(d)
}

func (g *Global) ownKey(key string) any {
	v := reflect.ValueOf(g).Elem()
	for i := range v.NumField() {
		if key != "" && strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0] == key {
			return v.Field(i).Addr().Interface()
		}
	}
	return nil
}

// AnalyticsCollectors are the collectors that draw on the analytics budget, in documented order.
var AnalyticsCollectors = collector.Names()

// CollectorWeights is each analytics collector's relative share of a key's budget, by name.
type CollectorWeights map[string]float64

func defaultWeights() CollectorWeights {
	w := CollectorWeights{}
	for _, k := range collector.All {
		w[k.Name] = k.Weight
	}
	return w
}

// Of returns the weight of the named collector, 0 for an unknown name.
func (w CollectorWeights) Of(name string) float64 { return w[name] }

// UnmarshalYAML sets the file's weights over the defaults in a new map, so the defaults never change.
func (w *CollectorWeights) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.MappingNode {
		return nodeErrorf(node, "expected a mapping of collector names to weights")
	}
	out := CollectorWeights(maps.Collect(maps.All(*w)))
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
	Name          string  `yaml:"name"`
	APIKeyEnv     string  `yaml:"api_key_env,omitempty"`
	APIKeyFile    string  `yaml:"api_key_file,omitempty"`
	BudgetPerHour int     `yaml:"budget_per_hour"`
	Reserve       int     `yaml:"reserve"`
	Share         float64 `yaml:"share"`
	// ExpiresAt is when the key stops working, from the dashboard: the API never says.
	ExpiresAt Date `yaml:"expires_at,omitempty"`
}

// Project is one Mintlify project to poll.
type Project struct {
	ID           string   `yaml:"id"`
	Name         string   `yaml:"name"`
	Key          string   `yaml:"key,omitempty"`
	Windows      []Window `yaml:"windows,omitempty"`
	IncludePaths []Regexp `yaml:"include_paths,omitempty"`
	ExcludePaths []Regexp `yaml:"exclude_paths,omitempty"`
	MaxPaths     int      `yaml:"max_paths"`
	Jobs         []string `yaml:"jobs,omitempty"`
	Collectors   []string `yaml:"collectors,omitempty"`
}

// Defaults are exported so the help and the docs quote them instead of repeating the numbers.
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
	DefaultProject = Project{
		MaxPaths: 5000,
	}
)

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

// These types lack UnmarshalYAML, so decoding into them does not recurse; yaml's messages name them.
type (
	topLevel Config
	global   Global
	key      Key
	project  Project
)

// UnmarshalYAML takes the func(any) error form because it keeps the caller's KnownFields(true) for nested structs.
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

// errEmpty: yaml would decode an empty file into a zero Config and report a dozen range errors.
var errEmpty = errors.New("the configuration is empty: at least one key and one project are required")

// Parse decodes and validates a configuration; fields left out get the Default* values.
func Parse(data []byte) (*Config, error) {
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

	// yaml drops null list entries, which would shift every later index in our messages.
	for i := 0; i+1 < len(top.Content); i += 2 {
		if list := top.Content[i+1]; list.Kind == yaml.SequenceNode {
			for j, e := range list.Content {
				if e.Kind == yaml.ScalarNode && e.Tag == "!!null" {
					return nil, fmt.Errorf("line %d: %s[%d] is empty", e.Line, top.Content[i].Value, j)
				}
			}
		}
	}

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

// LoadFile reads and parses a file; relative paths in it are relative to its directory, as Prometheus does.
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

// Single builds the flag-only configuration, validated as a file is; flags names the flags for its errors.
func Single(projectID, apiURL, keyEnv, keyFile string, flags FlagNames) (*Config, error) {
	c := &Config{Global: DefaultGlobal, flags: flags}
	c.Global.APIURL = cmp.Or(apiURL, c.Global.APIURL)
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

// KeyName is the name of the key the project uses: its own `key`, or the only key.
func (p Project) KeyName(c *Config) string {
	if p.Key != "" {
		return p.Key
	}
	if len(c.Keys) == 1 {
		return c.Keys[0].Name
	}
	return ""
}

// PathAllowed reports whether a page path is exported; exclusion wins, so a broad include can be trimmed.
func (p Project) PathAllowed(path string) bool {
	match := func(re Regexp) bool { return re.MatchString(path) }
	return !slices.ContainsFunc(p.ExcludePaths, match) && (len(p.IncludePaths) == 0 || slices.ContainsFunc(p.IncludePaths, match))
}
