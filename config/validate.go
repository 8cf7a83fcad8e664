package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

var (
	// Key names appear in labels, log lines and flag help, so they are kept identifier-like.
	keyNameRE     = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]*$`)
	projectNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)
)

// PlaceholderProjectID is the examples' project id, refused so an unedited example fails instead of polling nothing.
const PlaceholderProjectID = "YOUR_PROJECT_ID"

const (
	maxConcurrency = 16 // more would only queue behind the hourly budget
	minJobPoll     = 5 * time.Second
)

// validator collects every problem, so one edit-and-retry round fixes the whole file.
type validator struct {
	errs  []error
	flags FlagNames // of a configuration without a file (Single)
}

func (v *validator) add(at, subject, format string, args ...any) {
	if flag := v.flags.flag(at); flag != "" && subject != "" {
		subject = flag
	}
	v.errs = append(v.errs, &fieldError{at: at, subject: subject, msg: fmt.Sprintf(format, args...)})
}

func (v *validator) setting(at, subject, field string) (subj, name string) {
	if flag := v.flags.flag(at); flag != "" {
		return "", flag
	}
	return subject, field
}

func subject(list string, i int, name string) string {
	if name == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	return fmt.Sprintf("%s[%d] %q", list, i, name)
}

func hasSpace(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// Validate runs Parse's checks on a Config changed in Go, so it cannot skip what a file could not.
func (c *Config) Validate() error { return c.validate() }

func (c *Config) validate() error {
	v := &validator{flags: c.flags}
	c.validateGlobal(v)
	keyIndex := c.validateKeys(v)
	c.validateProjects(v, keyIndex)
	return errors.Join(v.errs...)
}

type place struct {
	v        *validator
	at, subj string
}

func (pl place) add(field, format string, args ...any) {
	at := pl.at
	if field != "" {
		at += "." + field
	}
	pl.v.add(at, pl.subj, format, args...)
}

func (c *Config) validateKeys(v *validator) map[string]int {
	if len(c.Keys) == 0 {
		v.add("keys", "", "at least one entry in keys is required")
	}
	keyIndex := map[string]int{}
	for i := range c.Keys {
		k := &c.Keys[i]
		pl := place{v, fmt.Sprintf("keys[%d]", i), subject("keys", i, k.Name)}
		k.validateName(pl, i, keyIndex)
		k.validateSource(pl)
		k.validateBudget(pl)
	}
	return keyIndex
}

func (k *Key) validateName(pl place, i int, keyIndex map[string]int) {
	switch {
	case k.Name == "":
		pl.add("", "name is required")
	case !keyNameRE.MatchString(k.Name):
		pl.add("name", "name must match %s", keyNameRE)
	default:
		if j, dup := keyIndex[k.Name]; dup {
			pl.add("name", "name is already used by keys[%d]", j)
		} else {
			keyIndex[k.Name] = i
		}
	}
}

func (k *Key) validateSource(pl place) {
	switch {
	case k.APIKeyEnv == "" && k.APIKeyFile == "":
		pl.add("", "one of api_key_env or api_key_file is required")
	case k.APIKeyEnv != "" && k.APIKeyFile != "":
		pl.add("api_key_file", "api_key_env and api_key_file are mutually exclusive; set only one")
	}
}

func (k *Key) validateBudget(pl place) {
	if k.BudgetPerHour < 1 {
		pl.add("budget_per_hour", "budget_per_hour must be at least 1, got %d", k.BudgetPerHour)
	}
	if k.Reserve < 0 || k.Reserve >= k.BudgetPerHour {
		pl.add("reserve", "reserve must be at least 0 and less than budget_per_hour (%d), got %d", k.BudgetPerHour, k.Reserve)
	}
	if !(k.Share > 0 && k.Share <= 1) { // also catches NaN
		pl.add("share", "share must be greater than 0 and at most 1, got %g", k.Share)
	}
}

func (c *Config) validateProjects(v *validator, keyIndex map[string]int) {
	if len(c.Projects) == 0 {
		v.add("projects", "", "at least one entry in projects is required")
	}
	ids, names := map[string]int{}, map[string]int{}
	for i := range c.Projects {
		p := &c.Projects[i]
		defaulted := p.Name == ""
		if defaulted {
			p.Name = p.ID
		}
		pl := place{v, fmt.Sprintf("projects[%d]", i), subject("projects", i, p.Name)}
		p.validateID(pl, i, ids, defaulted)
		p.validateName(pl, i, names, defaulted)
		switch {
		case p.Key != "":
			if _, ok := keyIndex[p.Key]; !ok {
				pl.add("key", "key %q is not defined in keys", p.Key)
			}
		case len(c.Keys) > 1:
			pl.add("", "key is required when more than one key is defined")
		}
		c.validateWindows(v, i)
		p.validatePaths(pl)
		p.validateCollectors(pl)
		p.validateJobs(pl)
	}
}

func (p *Project) validateID(pl place, i int, ids map[string]int, defaulted bool) {
	switch {
	case p.ID == "":
		pl.add("", "id is required")
	case mintlify.IsPlaceholder(p.ID):
		pl.add("id", "id %q is the example's placeholder: set your Mintlify project's id (from the API keys page of the Mintlify dashboard)", p.ID)
		if defaulted {
			p.Name = ""
		}
	case mintlify.CheckID(p.ID) != nil:
		// The id is one segment of every API path.
		pl.add("id", "%v", mintlify.CheckID(p.ID))
		if defaulted {
			p.Name = ""
		}
	default:
		if j, dup := ids[p.ID]; dup {
			pl.add("id", "id %q is already used by projects[%d]", p.ID, j)
		} else {
			ids[p.ID] = i
		}
	}
}

func (p *Project) validateName(pl place, i int, names map[string]int, defaulted bool) {
	switch j, dup := names[p.Name]; {
	case p.Name == "":
	case !projectNameRE.MatchString(p.Name) && defaulted:
		pl.add("", "the id is not a valid project label; set name to a value matching %s", projectNameRE)
	case !projectNameRE.MatchString(p.Name):
		pl.add("name", "name must match %s", projectNameRE)
	case dup:
		pl.add("name", "name is already used by projects[%d]; names are the project label and must differ", j)
	default:
		names[p.Name] = i
	}
}

func (p *Project) validatePaths(pl place) {
	for j, re := range p.IncludePaths {
		if re.Regexp == nil {
			pl.add(fmt.Sprintf("include_paths[%d]", j), "include_paths[%d] is not compiled; build it with NewRegexp", j)
		}
	}
	for j, re := range p.ExcludePaths {
		if re.Regexp == nil {
			pl.add(fmt.Sprintf("exclude_paths[%d]", j), "exclude_paths[%d] is not compiled; build it with NewRegexp", j)
		}
	}
	if p.MaxPaths < 0 {
		pl.add("max_paths", "max_paths must be 0 (unlimited) or more, got %d", p.MaxPaths)
	}
}

func (p *Project) validateCollectors(pl place) {
	seen := map[string]bool{}
	for j, name := range p.Collectors {
		field := fmt.Sprintf("collectors[%d]", j)
		switch {
		case !slices.Contains(AnalyticsCollectors, name):
			pl.add(field, "collectors[%d] %q is not one of %s", j, name, strings.Join(AnalyticsCollectors, ", "))
		case seen[name]:
			pl.add(field, "collectors[%d] %q is listed twice", j, name)
		}
		seen[name] = true
	}
}

func (p *Project) validateJobs(pl place) {
	seen := map[string]int{}
	for j, id := range p.Jobs {
		field := fmt.Sprintf("jobs[%d]", j)
		switch k, dup := seen[id]; {
		case id == "":
			pl.add(field, "jobs[%d] is empty", j)
		case mintlify.CheckID(id) != nil:
			pl.add(field, "jobs[%d]: %v", j, mintlify.CheckID(id))
		case dup:
			pl.add(field, "jobs[%d] %q repeats jobs[%d]", j, id, k)
		default:
			seen[id] = j
		}
	}
}

// CheckAPIURL refuses all but absolute http(s) URLs without query, fragment or user info (a password would go with the key).
func CheckAPIURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an absolute http or https URL, got %q", redactURL(raw))
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("must have a port from 1 to 65535, got %q", redactURL(raw))
		}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.ForceQuery {
		return fmt.Errorf("must not contain a query, fragment or user info, got %q", redactURL(raw))
	}
	return nil
}

// redactURL hides user info, parsed or not: a token can be a user name as well as a password.
func redactURL(raw string) string {
	scheme, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		scheme, rest = raw[:i+3], raw[i+3:]
	}
	authority := rest
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		authority = rest[:j]
	}
	if k := strings.LastIndex(authority, "@"); k >= 0 {
		return scheme + "xxxxx" + rest[k:]
	}
	return raw
}

func (c *Config) validateGlobal(v *validator) {
	g := &c.Global
	if reflect.ValueOf(*g).IsZero() {
		*g = DefaultGlobal
		g.CollectorWeights = maps.Clone(DefaultGlobal.CollectorWeights)
	}
	const s = "global"
	if err := CheckAPIURL(g.APIURL); err != nil {
		v.add("global.api_url", s, "api_url %v", err)
	}
	g.APIURL = strings.TrimRight(g.APIURL, "/")
	if g.MinRefreshInterval <= 0 {
		v.add("global.min_refresh_interval", s, "min_refresh_interval must be greater than 0")
	}
	if g.MaxRefreshInterval < g.MinRefreshInterval {
		v.add("global.max_refresh_interval", s, "max_refresh_interval (%s) must not be less than min_refresh_interval (%s)", g.MaxRefreshInterval, g.MinRefreshInterval)
	}
	if g.MaxAge <= 0 {
		v.add("global.max_age", s, "max_age must be greater than 0")
	}
	if g.PageSize < 1 || g.PageSize > mintlify.MaxPageSize {
		v.add("global.page_size", s, "page_size must be between 1 and %d, got %d", mintlify.MaxPageSize, g.PageSize)
	}
	if g.PageConcurrency < 1 || g.PageConcurrency > maxConcurrency {
		v.add("global.page_concurrency", s, "page_concurrency must be between 1 and %d, got %d", maxConcurrency, g.PageConcurrency)
	}
	if g.MaxPages < 1 {
		v.add("global.max_pages", s, "max_pages must be at least 1, got %d", g.MaxPages)
	}
	g.validateRequestTimeout(v)
	if time.Duration(g.JobPollInterval) < minJobPoll {
		v.add("global.job_poll_interval", s, "job_poll_interval must be at least %s, got %s", formatDuration(minJobPoll), g.JobPollInterval)
	}
	if g.JobRetention <= 0 {
		v.add("global.job_retention", s, "job_retention must be greater than 0")
	}
	if g.JobConcurrency < 1 || g.JobConcurrency > maxConcurrency {
		v.add("global.job_concurrency", s, "job_concurrency must be between 1 and %d, got %d", maxConcurrency, g.JobConcurrency)
	}
	for _, name := range AnalyticsCollectors {
		if w := g.CollectorWeights.Of(name); w <= 0 {
			v.add("global.collector_weights."+name, s, "collector_weights.%s must be greater than 0, got %g", name, w)
		}
	}
	g.validateCollectorSettings(v)
}

func (g *Global) validateRequestTimeout(v *validator) {
	if time.Duration(g.RequestTimeout) < MinRequestTimeout || time.Duration(g.RequestTimeout) > MaxRequestTimeout {
		subj, name := v.setting("global.request_timeout", "global", "request_timeout")
		v.add("global.request_timeout", subj, "%s must be at least %s and at most %s, got %s", name, formatDuration(MinRequestTimeout), formatDuration(MaxRequestTimeout), g.RequestTimeout)
	}
}

// Two windows of the same length would spend the budget twice on the same numbers under two labels.
func (c *Config) validateWindows(v *validator, i int) {
	p := &c.Projects[i]
	at, subj := fmt.Sprintf("projects[%d]", i), subject("projects", i, p.Name)
	seen := map[time.Duration]int{}
	for j, w := range p.Windows {
		wat := fmt.Sprintf("%s.windows[%d]", at, j)
		if _, err := ParseWindow(w.Label); err != nil {
			v.add(wat, subj, "invalid window %q: %v", w.Label, err)
			continue
		}
		if d, _ := parseDuration(w.Label); d != w.Duration {
			v.add(wat, subj, "window %q has duration %s, which does not match its label", w.Label, Duration(w.Duration))
			continue
		}
		if k, dup := seen[w.Duration]; dup {
			if flag := v.flags.flag(wat); flag != "" {
				v.add(wat, "", "%s %q is the same length as the earlier %s %q", flag, w.Label, flag, p.Windows[k].Label)
			} else {
				v.add(wat, subj, "window %q is the same length as windows[%d] %q", w.Label, k, p.Windows[k].Label)
			}
			continue
		}
		seen[w.Duration] = j
	}
}

func (g *Global) validateCollectorSettings(v *validator) {
	const s = "global"
	for _, k := range collector.All {
		if at := SettingPath(k, spec.TopNSetting); k.TopN > 0 {
			if n := g.TopN(k.Name); n < 1 || n > MaxTopN {
				subj, name := v.setting(at, s, k.Key(spec.TopNSetting))
				v.add(at, subj, "%s must be between 1 and %d, got %d", name, MaxTopN, n)
			}
		}
		if at := SettingPath(k, spec.LookBackSetting); k.LookBack > 0 {
			if d := Duration(g.LookBack(k.Name)); d < MinLookBack || d > MaxLookBack {
				subj, name := v.setting(at, s, k.Key(spec.LookBackSetting))
				v.add(at, subj, "%s must be between %s and %s, got %s", name, MinLookBack, MaxLookBack, d)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g.CollectorTopN)) {
		if k, ok := collector.Lookup(name); !ok || k.TopN == 0 || k.TopNKey != "" {
			v.add("global.collector_top_n."+name, s, "collector_top_n.%s: %s", name, settingOf(spec.TopNSetting, func(k spec.Collector) bool { return k.TopN > 0 }))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g.CollectorLookBack)) {
		if k, ok := collector.Lookup(name); !ok || k.LookBack == 0 || k.LookBackKey != "" {
			v.add("global.collector_look_back."+name, s, "collector_look_back.%s: %s", name, settingOf(spec.LookBackSetting, func(k spec.Collector) bool { return k.LookBack > 0 }))
		}
	}
}

// SettingPath is the configuration path of kind k's setting: "global." and its key.
func SettingPath(k spec.Collector, setting string) string { return "global." + k.Key(setting) }

func settingOf(setting string, has func(spec.Collector) bool) string {
	var keys []string
	for _, k := range collector.All {
		if has(k) {
			keys = append(keys, k.Key(setting))
		}
	}
	if len(keys) == 0 {
		return "no collector has a " + setting + " setting"
	}
	return "not a collector with a " + setting + " setting (they are set by " + strings.Join(keys, ", ") + ")"
}
