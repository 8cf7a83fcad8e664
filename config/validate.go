package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	idcheck "github.com/mintlify-exporter/mintlify_exporter/internal/ids"
)

var (
	// Key names are label values, and also appear in log lines and flag
	// help, so they are kept identifier-like.
	keyNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]*$`)
	// Project names are label values that people type into PromQL.
	projectNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)
)

const (
	maxPageSize    = 250 // the API's own maximum
	maxConcurrency = 16  // more would only queue behind the hourly budget
	minJobPoll     = 5 * time.Second
)

// validator collects every problem rather than stopping at the first, so
// one edit-and-retry round fixes the whole file.
type validator struct{ errs []error }

func (v *validator) add(at, subject, format string, args ...any) {
	v.errs = append(v.errs, &fieldError{at: at, subject: subject, msg: fmt.Sprintf(format, args...)})
}

// subject names a list element the way users find it: by index, and by
// name when it has one.
func subject(list string, i int, name string) string {
	if name == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	return fmt.Sprintf("%s[%d] %q", list, i, name)
}

// hasSpace reports whitespace or control characters, which would break an
// id used in a URL path or a job id copied from a terminal.
func hasSpace(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// Validate runs the checks Parse runs, for a Config changed in Go after
// Single or Parse (for example windows set from command-line flags), so
// such a config cannot skip what a file could not.
func (c *Config) Validate() error { return c.validate() }

// validate checks the values and fills in the defaults that depend on
// other fields (a project's name). It also trims a trailing slash from
// api_url so clients can append paths.
func (c *Config) validate() error {
	v := &validator{}
	c.validateGlobal(v)

	if len(c.Keys) == 0 {
		v.add("keys", "", "at least one entry in keys is required")
	}
	keyIndex := map[string]int{}
	for i := range c.Keys {
		k := &c.Keys[i]
		at, subj := fmt.Sprintf("keys[%d]", i), subject("keys", i, k.Name)
		switch {
		case k.Name == "":
			v.add(at, subj, "name is required")
		case !keyNameRE.MatchString(k.Name):
			v.add(at+".name", subj, "name must match %s", keyNameRE)
		default:
			if j, dup := keyIndex[k.Name]; dup {
				v.add(at+".name", subj, "name is already used by keys[%d]", j)
			} else {
				keyIndex[k.Name] = i
			}
		}
		switch {
		case k.APIKeyEnv == "" && k.APIKeyFile == "":
			v.add(at, subj, "one of api_key_env or api_key_file is required")
		case k.APIKeyEnv != "" && k.APIKeyFile != "":
			v.add(at+".api_key_file", subj, "api_key_env and api_key_file are mutually exclusive; set only one")
		}
		if k.BudgetPerHour < 1 {
			v.add(at+".budget_per_hour", subj, "budget_per_hour must be at least 1, got %d", k.BudgetPerHour)
		}
		if k.Reserve < 0 || k.Reserve >= k.BudgetPerHour {
			v.add(at+".reserve", subj, "reserve must be at least 0 and less than budget_per_hour (%d), got %d", k.BudgetPerHour, k.Reserve)
		}
		if !(k.Share > 0 && k.Share <= 1) { // also catches NaN
			v.add(at+".share", subj, "share must be greater than 0 and at most 1, got %g", k.Share)
		}
	}

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
		at, subj := fmt.Sprintf("projects[%d]", i), subject("projects", i, p.Name)
		switch {
		case p.ID == "":
			v.add(at, subj, "id is required")
		case idcheck.Check(p.ID) != nil:
			// The id is one segment of every API path: no dot segment,
			// slash, query or fragment marker, control character.
			v.add(at+".id", subj, "%v", idcheck.Check(p.ID))
			if defaulted { // one error about the id is enough
				p.Name = ""
			}
		default:
			if j, dup := ids[p.ID]; dup {
				v.add(at+".id", subj, "id %q is already used by projects[%d]", p.ID, j)
			} else {
				ids[p.ID] = i
			}
		}
		if p.Name != "" {
			if !projectNameRE.MatchString(p.Name) {
				if defaulted {
					v.add(at, subj, "the id is not a valid project label; set name to a value matching %s", projectNameRE)
				} else {
					v.add(at+".name", subj, "name must match %s", projectNameRE)
				}
			} else if j, dup := names[p.Name]; dup {
				v.add(at+".name", subj, "name is already used by projects[%d]; names are the project label and must differ", j)
			} else {
				names[p.Name] = i
			}
		}
		switch {
		case p.Key != "":
			if _, ok := keyIndex[p.Key]; !ok {
				v.add(at+".key", subj, "key %q is not defined in keys", p.Key)
			}
		case len(c.Keys) > 1:
			v.add(at, subj, "key is required when more than one key is defined")
		}
		c.validateWindows(v, i)
		for j, re := range p.IncludePaths {
			if re.Regexp == nil {
				v.add(fmt.Sprintf("%s.include_paths[%d]", at, j), subj, "include_paths[%d] is not compiled; build it with NewRegexp", j)
			}
		}
		for j, re := range p.ExcludePaths {
			if re.Regexp == nil {
				v.add(fmt.Sprintf("%s.exclude_paths[%d]", at, j), subj, "exclude_paths[%d] is not compiled; build it with NewRegexp", j)
			}
		}
		if p.MaxPaths < 0 {
			v.add(at+".max_paths", subj, "max_paths must be 0 (unlimited) or more, got %d", p.MaxPaths)
		}
		seenC := map[string]bool{}
		for j, name := range p.Collectors {
			cat := fmt.Sprintf("%s.collectors[%d]", at, j)
			switch {
			case !slices.Contains(AnalyticsCollectors, name):
				v.add(cat, subj, "collectors[%d] %q is not one of %s", j, name, strings.Join(AnalyticsCollectors, ", "))
			case seenC[name]:
				v.add(cat, subj, "collectors[%d] %q is listed twice", j, name)
			}
			seenC[name] = true
		}
		seen := map[string]int{}
		for j, id := range p.Jobs {
			jat := fmt.Sprintf("%s.jobs[%d]", at, j)
			switch k, dup := seen[id]; {
			case id == "":
				v.add(jat, subj, "jobs[%d] is empty", j)
			case hasSpace(id):
				v.add(jat, subj, "jobs[%d] %q contains whitespace", j, id)
			case idcheck.Check(id) != nil:
				v.add(jat, subj, "jobs[%d]: %v", j, idcheck.Check(id))
			case dup:
				v.add(jat, subj, "jobs[%d] %q repeats jobs[%d]", j, id, k)
			default:
				seen[id] = j
			}
		}
	}
	return errors.Join(v.errs...)
}

// CheckAPIURL reports why raw cannot be the API's base URL: it must be an
// absolute http or https URL without query, fragment or user info (a
// password there would be sent along with the key). The config file and
// the jobs command both use it, so they accept the same URLs.
func CheckAPIURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("must be an absolute http or https URL, got %q", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.ForceQuery {
		return errors.New("must not contain a query, fragment or user info")
	}
	return nil
}

func (c *Config) validateGlobal(v *validator) {
	g := &c.Global
	if *g == (Global{}) {
		// "global:" with nothing under it decodes to a zero value, not to
		// the defaults; it plainly means "all defaults".
		*g = DefaultGlobal
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
	if g.PageSize < 1 || g.PageSize > maxPageSize {
		v.add("global.page_size", s, "page_size must be between 1 and %d, got %d", maxPageSize, g.PageSize)
	}
	if g.PageConcurrency < 1 || g.PageConcurrency > maxConcurrency {
		v.add("global.page_concurrency", s, "page_concurrency must be between 1 and %d, got %d", maxConcurrency, g.PageConcurrency)
	}
	if g.MaxPages < 1 {
		v.add("global.max_pages", s, "max_pages must be at least 1, got %d", g.MaxPages)
	}
	if g.RequestTimeout <= 0 {
		v.add("global.request_timeout", s, "request_timeout must be greater than 0")
	}
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
	if g.SearchTopN < 1 || g.SearchTopN > 100 {
		v.add("global.search_top_n", s, "search_top_n must be between 1 and 100, got %d", g.SearchTopN)
	}
}

// validateWindows re-checks windows built in Go (a file's were checked
// while decoding) and rejects two windows of the same length, which would
// spend the budget twice on the same numbers under two labels. No windows
// at all is the default: the month-to-date counters only.
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
			v.add(wat, subj, "window %q is the same length as windows[%d] %q", w.Label, k, p.Windows[k].Label)
			continue
		}
		seen[w.Duration] = j
	}
}
