// Package dashboards_test checks the Grafana dashboard, the alerting rules
// and their runbook against each other and against the metrics the
// exporter really exposes.
//
// PromQL syntax is checked with promtool (from the Debian package
// `prometheus`) rather than with the Prometheus Go module, which would pull
// a large dependency tree into go.mod. Without promtool those checks are
// skipped and named in the summary `make test` prints, or fail when
// CI=true (see internal/toolcheck).
package dashboards_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/engine"
	"github.com/mintlify-exporter/mintlify_exporter/internal/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

func TestMain(m *testing.M) {
	os.Exit(toolcheck.Wrap(m, "dashboards").Run())
}

const (
	dashboardFile  = "mintlify.json"
	alertsFile     = "alerts.yml"
	alertsTestFile = "alerts_test.yml"
	// alertsMonthTestFile holds the alert tests whose series span weeks,
	// evaluated hourly (see its header).
	alertsMonthTestFile = "alerts_month_test.yml"
	runbookFile         = "../docs/dashboards-and-alerts.md"
	runbookBase         = "https://github.com/mintlify-exporter/mintlify_exporter/blob/main/docs/dashboards-and-alerts.md#runbook-"
)

// mainOnlyMetrics are registered by package main (reload state), not by
// the collector; the build-info collector is registered here like main
// does.
var mainOnlyMetrics = []string{
	"mintlify_exporter_config_last_reload_successful",
	"mintlify_exporter_config_last_reload_success_timestamp_seconds",
}

// ---------------------------------------------------------------- dashboard model

type dashboard struct {
	SchemaVersion int `json:"schemaVersion"`
	Annotations   struct {
		List []struct {
			Name string `json:"name"`
			Expr string `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
	Templating struct {
		List []variable `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type variable struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Query      json.RawMessage `json:"query"`
	Definition string          `json:"definition"`
	Datasource *datasourceRef  `json:"datasource"`
	IncludeAll bool            `json:"includeAll"`
	AllValue   string          `json:"allValue"`
}

type panel struct {
	ID          int            `json:"id"`
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Datasource  *datasourceRef `json:"datasource"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Targets []target `json:"targets"`
	Panels  []panel  `json:"panels"` // a collapsed row's panels
}

type target struct {
	RefID      string         `json:"refId"`
	Expr       string         `json:"expr"`
	Datasource *datasourceRef `json:"datasource"`
}

func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// allPanels flattens rows, keeping the order.
func allPanels(ps []panel) []panel {
	var out []panel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}

func (p panel) name() string { return fmt.Sprintf("panel %d %q", p.ID, p.Title) }

// query is one PromQL expression of the dashboard and where it comes from.
type query struct {
	where string
	expr  string
}

// dashboardQueries lists every target expression, and the series selector
// of every label_values() variable query.
func dashboardQueries(t *testing.T, d dashboard) []query {
	t.Helper()
	var qs []query
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		sel, ok := labelValuesSelector(v.Definition)
		if !ok {
			t.Errorf("variable %q: definition %q is not label_values(<selector>, <label>)", v.Name, v.Definition)
			continue
		}
		qs = append(qs, query{"variable " + v.Name, sel})
	}
	for _, p := range allPanels(d.Panels) {
		for _, tg := range p.Targets {
			qs = append(qs, query{fmt.Sprintf("%s target %s", p.name(), tg.RefID), tg.Expr})
		}
	}
	for _, a := range d.Annotations.List {
		if a.Expr != "" {
			qs = append(qs, query{"annotation " + a.Name, a.Expr})
		}
	}
	return qs
}

var labelValuesRe = regexp.MustCompile(`^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)

func labelValuesSelector(def string) (string, bool) {
	m := labelValuesRe.FindStringSubmatch(strings.TrimSpace(def))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// ---------------------------------------------------------------- (a) linter rules

func isDatasourceVar(uid string) bool { return uid == "${datasource}" || uid == "$datasource" }

func TestDashboardLint(t *testing.T) {
	d := loadDashboard(t)
	if d.SchemaVersion < 36 {
		t.Errorf("schemaVersion %d, want >= 36", d.SchemaVersion)
	}

	vars := map[string]variable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	ds, ok := vars["datasource"]
	switch {
	case !ok:
		t.Error(`no "datasource" variable`)
	case ds.Type != "datasource":
		t.Errorf(`variable "datasource" has type %q, want "datasource"`, ds.Type)
	default:
		var q string
		if err := json.Unmarshal(ds.Query, &q); err != nil || q != "prometheus" {
			t.Errorf(`variable "datasource" query %s, want "prometheus"`, ds.Query)
		}
	}
	for _, name := range []string{"job", "instance", "project", "window"} {
		if v, ok := vars[name]; !ok || v.Type != "query" {
			t.Errorf("no query variable %q", name)
		}
	}
	// Grafana's dashboard linter: "All" of job and instance is the regex
	// .+, not the list of values seen when the dashboard loaded.
	for _, name := range []string{"job", "instance"} {
		if v := vars[name]; !v.IncludeAll || v.AllValue != ".+" {
			t.Errorf("variable %q: includeAll %v, allValue %q; want true and \".+\"", name, v.IncludeAll, v.AllValue)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" && (v.Datasource == nil || !isDatasourceVar(v.Datasource.UID)) {
			t.Errorf("variable %q does not use the ${datasource} variable", v.Name)
		}
	}

	ps := allPanels(d.Panels)
	if len(ps) == 0 {
		t.Fatal("no panels")
	}
	ids := map[int]bool{}
	for _, p := range ps {
		if ids[p.ID] {
			t.Errorf("%s: duplicate panel id", p.name())
		}
		ids[p.ID] = true
		if strings.TrimSpace(p.Title) == "" {
			t.Errorf("%s: empty title", p.name())
		}
		if strings.TrimSpace(p.Description) == "" {
			t.Errorf("%s: empty description", p.name())
		}
		if p.Type == "row" {
			continue // rows have neither data source, targets nor units
		}
		if strings.TrimSpace(p.FieldConfig.Defaults.Unit) == "" {
			t.Errorf("%s: empty fieldConfig.defaults.unit", p.name())
		}
		if p.Datasource == nil || !isDatasourceVar(p.Datasource.UID) {
			t.Errorf("%s: datasource %+v, want uid ${datasource}", p.name(), p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("%s: no targets", p.name())
		}
		for _, tg := range p.Targets {
			where := fmt.Sprintf("%s target %s", p.name(), tg.RefID)
			if tg.Datasource == nil || !isDatasourceVar(tg.Datasource.UID) {
				t.Errorf("%s: datasource %+v, want uid ${datasource}", where, tg.Datasource)
			}
			if strings.TrimSpace(tg.Expr) == "" {
				t.Errorf("%s: empty expr", where)
				continue
			}
			for _, m := range []string{`job=~"$job"`, `instance=~"$instance"`} {
				if !strings.Contains(tg.Expr, m) {
					t.Errorf("%s: expr does not contain %s: %s", where, m, tg.Expr)
				}
			}
			// Every selector, not just one, must carry the filters.
			for _, sel := range selectors(tg.Expr) {
				if !strings.Contains(sel, `job=~"$job"`) || !strings.Contains(sel, `instance=~"$instance"`) {
					t.Errorf("%s: selector %s lacks the job/instance filters", where, sel)
				}
			}
			for _, problem := range rateIntervalProblems(tg.Expr) {
				t.Errorf("%s: %s", where, problem)
			}
		}
	}
}

// TestDashboardVariablesDefined: every $var in a query is a dashboard
// variable or a Grafana built-in.
func TestDashboardVariablesDefined(t *testing.T) {
	d := loadDashboard(t)
	defined := map[string]bool{"__rate_interval": true, "__interval": true, "__range": true}
	for _, v := range d.Templating.List {
		defined[v.Name] = true
	}
	for _, q := range dashboardQueries(t, d) {
		for _, m := range varRe.FindAllStringSubmatch(q.expr, -1) {
			name := m[1] + m[2]
			if !defined[name] {
				t.Errorf("%s: undefined variable $%s in %s", q.where, name, q.expr)
			}
		}
	}
}

var (
	// $name or ${name} or ${name:format}
	varRe = regexp.MustCompile(`\$(?:\{([A-Za-z0-9_]+)(?::[^}]*)?\}|([A-Za-z0-9_]+))`)
	// string literals of PromQL
	stringRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	// a metric name followed by a label matcher block
	selectorRe = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*\s*\{[^}]*\}`)
	// the functions that need a range
	rangeFuncRe = regexp.MustCompile(`\b(irate|rate|increase)\s*\(`)
	rangeRe     = regexp.MustCompile(`\[[^\]]*\]`)
	// a fixed range in whole hours, days or weeks
	fixedRangeRe = regexp.MustCompile(`^\[[1-9][0-9]*[hdw]\]$`)
	// an identifier outside strings
	identRe = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	// "by (" or "without (" after an aggregation operator
	aggrModifierRe = regexp.MustCompile(`^(by|without)\s*\(`)
)

// selectors returns the name{matchers} selectors of expr. (Label matchers
// never contain "}" in this dashboard.)
func selectors(expr string) []string { return selectorRe.FindAllString(expr, -1) }

// rateIntervalProblems reports rate(), irate() and increase() calls whose
// range is not [$__rate_interval].
func rateIntervalProblems(expr string) []string {
	var out []string
	for _, loc := range rangeFuncRe.FindAllStringSubmatchIndex(expr, -1) {
		fn := expr[loc[2]:loc[3]]
		open := loc[1] - 1
		depth, end := 0, -1
		for i := open; i < len(expr) && end < 0; i++ {
			switch expr[i] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			out = append(out, fmt.Sprintf("%s( is not closed", fn))
			continue
		}
		ranges := rangeRe.FindAllString(expr[open:end], -1)
		switch {
		case len(ranges) == 1 && ranges[0] == "[$__rate_interval]":
		case len(ranges) == 1 && fn == "increase" && (ranges[0] == "[$__range]" || fixedRangeRe.MatchString(ranges[0])):
			// The counters' total over the panel's time range, or over a
			// fixed span such as the last 24h.
		default:
			out = append(out, fmt.Sprintf("%s() must use [$__rate_interval] (increase() also [$__range] or a fixed span such as [24h]), has %v", fn, ranges))
		}
	}
	return out
}

// ---------------------------------------------------------------- (b) metric names

// promqlWords are identifiers in expressions that are not metric names.
var promqlWords = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"and": true, "or": true, "unless": true, "offset": true, "bool": true, "atan2": true,
}

// metricNames returns the metric names an expression selects: identifiers
// outside strings that are neither keywords, functions, aggregations, label
// names in by/on/... lists, nor durations.
func metricNames(expr string) []string {
	s := stringRe.ReplaceAllString(expr, `""`)
	s = rangeRe.ReplaceAllString(s, "")
	s = varRe.ReplaceAllString(s, "")
	var out []string
	for _, loc := range identRe.FindAllStringIndex(s, -1) {
		word := s[loc[0]:loc[1]]
		if loc[0] > 0 && (isDigit(s[loc[0]-1]) || s[loc[0]-1] == '.') {
			continue // the unit of a duration or number, e.g. 1w, 2e3
		}
		if promqlWords[word] {
			continue
		}
		rest := strings.TrimLeft(s[loc[1]:], " \t\n")
		if strings.HasPrefix(rest, "(") || aggrModifierRe.MatchString(rest) {
			continue // a function, or an aggregation such as sum by (...) (...)
		}
		if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!=") || strings.HasPrefix(rest, "=~") || strings.HasPrefix(rest, "!~") {
			continue // a label name inside {...}
		}
		if inLabelList(s, loc[0]) {
			continue
		}
		out = append(out, word)
	}
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// inLabelList tells whether position i is inside the (...) of by, without,
// on, ignoring, group_left or group_right, or inside {...}.
func inLabelList(s string, i int) bool {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		switch s[j] {
		case '}':
			return false
		case '{':
			return true
		case ')':
			depth++
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			before := strings.TrimRight(s[:j], " \t\n")
			for w := range promqlWords {
				if w != "and" && w != "or" && w != "unless" && w != "offset" && w != "bool" && strings.HasSuffix(before, w) {
					return true
				}
			}
			return false
		}
	}
	return false
}

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func loadRules(t *testing.T) ruleFile {
	t.Helper()
	b, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.Unmarshal(b, &rf); err != nil {
		t.Fatalf("%s: %v", alertsFile, err)
	}
	return rf
}

func TestMetricNameExtraction(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (project, window) (rate(mintlify_a_total{job=~"$job"}[$__rate_interval]))`: {"mintlify_a_total"},
		`time() - max by (project) (mintlify_b{x="rate(up)"}) > 2 * 3600`:                  {"mintlify_b"},
		`a and on (job, instance) b offset 1w unless ignoring (x) c`:                       {"a", "b", "c"},
		`histogram_quantile(0.95, sum by (le) (rate(h_bucket[5m])))`:                       {"h_bucket"},
		`absent(m) * 0 or clamp_min(3 * n, 7200) > 1e3`:                                    {"m", "n"},
		`x{a="1"} / on (job) group_left (y) z`:                                             {"x", "z"},
		`topk by (project, window) (25, sum by (path) (pv)) and sum without (a) (q)`:       {"pv", "q"},
	} {
		if got := metricNames(expr); !slices.Equal(got, want) {
			t.Errorf("metricNames(%s) = %v, want %v", expr, got, want)
		}
	}
}

// exposedMetricNames runs the real collector against the simulated API,
// with every analytics collector (page views, visitors, feedback, searches,
// assistant) in two windows and jobs in every status, and returns the names
// of the series it exposes.
func exposedMetricNames(t *testing.T) map[string]bool {
	t.Helper()
	const key, keyEnv = "mint_dashboardtestkey1", "DASHBOARD_TEST_MINTLIFY_KEY"
	api, err := mockapi.Start(mockapi.Options{
		Keys: []mockapi.KeySpec{{Key: key, Org: "test-org", Scope: mockapi.ReadWrite}},
		Projects: map[string]mockapi.Site{
			"proj-docs": {Seed: 1, Paths: 40, OtherTraffic: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = api.Close() })
	now := time.Now()
	for _, j := range []mockapi.JobSeed{
		{ID: "job_archived", CreatedAt: now.Add(-3 * time.Hour)},
		{ID: "job_completed", CreatedAt: now.Add(-10 * time.Minute)},
		{ID: "job_failed", CreatedAt: now.Add(-5 * time.Minute), Fail: true},
		{ID: "job_active", CreatedAt: now},
	} {
		api.Server.SeedJob("proj-docs", j)
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
global:
  api_url: %q
keys:
  - name: test
    api_key_env: %s
    expires_at: 2027-03-01
projects:
  - id: proj-docs
    name: docs
    windows: [24h, 7d]
    collectors: [%s]
    jobs: [job_archived, job_completed, job_failed, job_active, job_missing]
`, api.URL(), keyEnv, strings.Join(collector.Names(), ", "))))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	exp, err := exporter.New(cfg, exporter.Options{Registerer: reg, Options: engine.Options{Collectors: collector.All,
		Getenv: func(name string) string {
			if name == keyEnv {
				return key
			}
			return ""
		},
		// With a state file, as in production: its metrics are exposed.
		StoragePath: filepath.Join(t.TempDir(), "state.json"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(exp.Close)
	reg.MustRegister(exp, versioncollector.NewCollector("mintlify_exporter"))

	// Start the refreshes, then wait for them to finish: no deadline.
	exp.Refresh(context.Background())
	exp.Wait()

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		n := mf.GetName()
		names[n] = true
		switch mf.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			names[n+"_bucket"], names[n+"_sum"], names[n+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			names[n+"_sum"], names[n+"_count"] = true, true
		}
	}
	for _, n := range mainOnlyMetrics {
		names[n] = true
	}
	return names
}

func TestMetricNamesExist(t *testing.T) {
	exposed := exposedMetricNames(t)
	// The fixture must be rich enough to expose the series that exist only
	// in some states, or this test would prove little.
	for _, n := range []string{
		"mintlify_page_views", "mintlify_site_page_views",
		"mintlify_agent_job_status", "mintlify_agent_job_pull_request_info",
		"mintlify_agent_job_archived_timestamp_seconds", "mintlify_api_request_duration_seconds_bucket",
		"mintlify_exporter_build_info",
		"mintlify_page_visitors", "mintlify_site_visitors", "mintlify_site_unique_visitors",
		"mintlify_page_feedback", "mintlify_page_feedback_truncated",
		"mintlify_search_hits", "mintlify_search_click_through_ratio", "mintlify_searches",
		"mintlify_assistant_queries",
		"mintlify_page_views_total", "mintlify_site_page_views_total", "mintlify_page_feedback_total",
		"mintlify_searches_total", "mintlify_assistant_queries_total",
	} {
		if !exposed[n] {
			t.Errorf("the test exporter does not expose %s; fix the fixture", n)
		}
	}

	used := map[string][]string{} // metric -> where
	d := loadDashboard(t)
	for _, q := range dashboardQueries(t, d) {
		for _, n := range metricNames(q.expr) {
			used[n] = append(used[n], q.where)
		}
	}
	for _, g := range loadRules(t).Groups {
		for _, r := range g.Rules {
			for _, n := range metricNames(r.Expr) {
				used[n] = append(used[n], "alert "+r.Alert)
			}
		}
	}
	for _, r := range recordingRules(t) {
		for _, n := range metricNames(r.Expr) {
			used[n] = append(used[n], "recording rule "+r.Record)
		}
	}
	if len(used) < 10 {
		t.Fatalf("found only %d metric names in the dashboard and rules: %v", len(used), used)
	}
	recorded := recordedNames(t)
	// The receiver's series (the actions annotation, the before-and-after
	// rules), as docs/loop.md
	// lists them; the receiver's tests hold that list to what it exposes.
	loop, err := os.ReadFile(filepath.Join("..", "docs", "loop.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`(mintlify_receiver_[a-z_]+)").FindAllStringSubmatch(string(loop), -1) {
		exposed[m[1]] = true
	}
	exposed["up"] = true // Prometheus' own, of each target (the receiver's alerts)
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !exposed[n] && !recorded[n] {
			t.Errorf("metric %s is not exposed by the exporter; used in %s", n, strings.Join(used[n], ", "))
		}
	}
	t.Logf("checked %d metric names: %s", len(names), strings.Join(names, " "))
}

// ---------------------------------------------------------------- (c), (d) promtool

// promtool returns the path of promtool and true; without promtool it
// fails the test in CI, and elsewhere records the check as skipped and
// returns false.
func promtool(t *testing.T, what string) (string, bool) {
	t.Helper()
	return toolcheck.Find(t, "promtool", "apt-get install prometheus", what)
}

func runPromtool(t *testing.T, bin, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// substitute replaces dashboard variables with values that keep the
// expression valid PromQL.
func substitute(expr string) string {
	return varRe.ReplaceAllStringFunc(expr, func(m string) string {
		name := strings.Trim(m, "${}")
		name, _, _ = strings.Cut(name, ":")
		switch name {
		case "__rate_interval", "__interval", "__range":
			return "5m"
		case "path":
			return "/docs/quickstart"
		}
		return ".*"
	})
}

func TestDashboardPromQL(t *testing.T) {
	d := loadDashboard(t)
	qs := dashboardQueries(t, d)
	var rf strings.Builder
	rf.WriteString("groups:\n  - name: dashboard_queries\n    rules:\n")
	for i, q := range qs {
		expr := substitute(q.expr)
		if strings.Contains(expr, "$") {
			t.Errorf("%s: unsubstituted variable in %s", q.where, expr)
		}
		b, _ := json.Marshal(expr) // a JSON string is a valid YAML string
		fmt.Fprintf(&rf, "      # %s\n      - record: dashboard:query_%d\n        expr: %s\n", strings.ReplaceAll(q.where, "\n", " "), i, b)
	}
	bin, ok := promtool(t, "PromQL check of the dashboard")
	if !ok {
		return
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "dashboard_queries.yml")
	if err := os.WriteFile(file, []byte(rf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "check", "rules", file)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	// Name the panels whose queries promtool rejected.
	for _, m := range regexp.MustCompile(`dashboard:query_(\d+)`).FindAllStringSubmatch(string(out), -1) {
		var i int
		if _, err := fmt.Sscan(m[1], &i); err == nil && i < len(qs) {
			t.Errorf("%s: invalid PromQL: %s", qs[i].where, qs[i].expr)
		}
	}
	t.Fatalf("promtool check rules on the dashboard's %d queries (variables substituted): %v\n%s", len(qs), err, out)
}

func TestAlertRulesPromtool(t *testing.T) {
	bin, ok := promtool(t, "promtool check/test of the alerting rules")
	if !ok {
		return
	}
	runPromtool(t, bin, ".", "check", "rules", alertsFile)
	runPromtool(t, bin, ".", "test", "rules", alertsTestFile, alertsMonthTestFile)
}

func TestPrometheusConfigPromtool(t *testing.T) {
	bin, ok := promtool(t, "promtool check of prometheus.yml")
	if !ok {
		return
	}
	runPromtool(t, bin, ".", "check", "config", "prometheus.yml")
}

// ---------------------------------------------------------------- rules, tests and runbook agree

var wantAlerts = []string{
	"MintlifyUpstreamDown", "MintlifyDataStale", "MintlifyRateLimited", "MintlifyBudgetNearlyExhausted",
	"MintlifyAgentJobFailed", "MintlifyAgentJobActiveTooLong", "MintlifyHumanPageViewsDrop",
	"MintlifyExporterConfigReloadFailed", "MintlifyExporterStateNotSaved", "MintlifyPageThumbsDownSpike",
	"MintlifyAssistantUnansweredShareHigh", "MintlifyFeedbackWaiting", "MintlifyAPIKeyExpiresSoon",
	"MintlifyReceiverDown", "MintlifyReceiverActionFailed", "MintlifyReceiverNotificationsRefused",
}

func TestAlertRulesShape(t *testing.T) {
	rf := loadRules(t)
	if len(rf.Groups) != 1 || rf.Groups[0].Name != "mintlify_exporter" {
		t.Fatalf("want exactly one group named mintlify_exporter, have %d", len(rf.Groups))
	}
	runbook, err := os.ReadFile(runbookFile)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rf.Groups[0].Rules {
		if r.Alert == "" {
			continue
		}
		got = append(got, r.Alert)
		if r.Labels["severity"] == "" {
			t.Errorf("%s: no severity label", r.Alert)
		}
		for _, a := range []string{"summary", "description"} {
			if strings.TrimSpace(r.Annotations[a]) == "" {
				t.Errorf("%s: no %s annotation", r.Alert, a)
			}
		}
		if !strings.Contains(r.Annotations["description"], "{{") {
			t.Errorf("%s: description has no template values", r.Alert)
		}
		if want := runbookBase + strings.ToLower(r.Alert); r.Annotations["runbook_url"] != want {
			t.Errorf("%s: runbook_url %q, want %q", r.Alert, r.Annotations["runbook_url"], want)
		}
		// GitHub turns "## Runbook: Name" into the anchor runbook-name.
		heading := regexp.MustCompile(`(?m)^#+ Runbook: ` + regexp.QuoteMeta(r.Alert) + `\s*$`)
		if !heading.Match(runbook) {
			t.Errorf("%s: %s has no heading %q", r.Alert, runbookFile, "Runbook: "+r.Alert)
		}
	}
	if !slices.Equal(sortedCopy(got), sortedCopy(wantAlerts)) {
		t.Errorf("alerts %v, want %v", got, wantAlerts)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

// TestAlertTestsCoverEveryAlert: each alert has a case where it must fire
// and one where it must stay silent.
func TestAlertTestsCoverEveryAlert(t *testing.T) {
	pos, neg := map[string]int{}, map[string]int{}
	for _, f := range []string{alertsTestFile, alertsMonthTestFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tf struct {
			Tests []struct {
				AlertRuleTest []struct {
					Alertname string           `yaml:"alertname"`
					ExpAlerts []map[string]any `yaml:"exp_alerts"`
				} `yaml:"alert_rule_test"`
			} `yaml:"tests"`
		}
		if err := yaml.Unmarshal(b, &tf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tc := range tf.Tests {
			for _, a := range tc.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					pos[a.Alertname]++
				} else {
					neg[a.Alertname]++
				}
			}
		}
	}
	for _, a := range wantAlerts {
		if pos[a] == 0 {
			t.Errorf("%s: no test case where it fires", a)
		}
		if neg[a] == 0 {
			t.Errorf("%s: no test case where it stays silent", a)
		}
	}
}

// TestRecordingRulesPromtool: rules.yml passes promtool's checks and its
// unit tests (across the month's restart, a path new to the export).
func TestRecordingRulesPromtool(t *testing.T) {
	bin, ok := promtool(t, "promtool check/test of the recording rules")
	if !ok {
		return
	}
	runPromtool(t, bin, ".", "check", "rules", "rules.yml")
	runPromtool(t, bin, ".", "test", "rules", "rules_test.yml")
}

// TestRecordingRuleNames: every recording rule is named
// level:metric:operations, its metric an exposed family without _total,
// and is tested in rules_test.yml.
func TestRecordingRuleNames(t *testing.T) {
	tests, err := os.ReadFile("rules_test.yml")
	if err != nil {
		t.Fatal(err)
	}
	exposed := exposedMetricNames(t)
	name := regexp.MustCompile(`^([a-z_]+):([a-z_]+):([a-z0-9_]+)$`)
	n := 0
	for _, r := range recordingRules(t) {
		if r.Alert != "" {
			t.Errorf("alert %s in rules.yml: alerts belong in alerts.yml", r.Alert)
			continue
		}
		n++
		m := name.FindStringSubmatch(r.Record)
		if m == nil {
			t.Errorf("%s is not level:metric:operations", r.Record)
			continue
		}
		if !exposed[m[2]+"_total"] && !exposed[m[2]] {
			t.Errorf("%s: %s is no family the exporter exposes", r.Record, m[2])
		}
		if !strings.Contains(string(tests), r.Record) {
			t.Errorf("%s has no unit test in rules_test.yml", r.Record)
		}
	}
	if n == 0 {
		t.Fatal("no recording rules")
	}
}

type recordingRule struct {
	Record string `yaml:"record"`
	Alert  string `yaml:"alert"`
	Expr   string `yaml:"expr"`
}

// recordingRules are the rules of rules.yml.
func recordingRules(t *testing.T) []recordingRule {
	t.Helper()
	b, err := os.ReadFile("rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []recordingRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var rules []recordingRule
	for _, g := range f.Groups {
		rules = append(rules, g.Rules...)
	}
	return rules
}

// recordedNames are the series the recording rules of rules.yml make.
func recordedNames(t *testing.T) map[string]bool {
	names := map[string]bool{}
	for _, r := range recordingRules(t) {
		names[r.Record] = true
	}
	return names
}

// datasourceRefs collects every panel's and target's datasource uid.
func datasourceRefs(d map[string]any) []string {
	var uids []string
	var walk func(panels []any)
	walk = func(panels []any) {
		for _, p := range panels {
			pm, _ := p.(map[string]any)
			if ds, ok := pm["datasource"].(map[string]any); ok {
				uids = append(uids, fmt.Sprint(ds["uid"]))
			}
			for _, tg := range asList(pm["targets"]) {
				if ds, ok := tg.(map[string]any)["datasource"].(map[string]any); ok {
					uids = append(uids, fmt.Sprint(ds["uid"]))
				}
			}
			walk(asList(pm["panels"]))
		}
	}
	walk(asList(d["panels"]))
	return uids
}

func asList(v any) []any { l, _ := v.([]any); return l }

func rawDashboard(t *testing.T, substitute string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("mintlify.json")
	if err != nil {
		t.Fatal(err)
	}
	if substitute != "" {
		b = bytes.ReplaceAll(b, []byte("${DS_PROMETHEUS}"), []byte(substitute))
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDashboardImports: the file carries what Grafana's import UI and
// grafana.com need: __inputs with the Prometheus data source, __requires
// naming Grafana, the data source and every panel type used, no id, a
// stable uid. Importing substitutes the chosen data source for
// ${DS_PROMETHEUS}: the datasource variable then defaults to it, and
// every panel and query goes through the variable.
func TestDashboardImports(t *testing.T) {
	d := rawDashboard(t, "")
	if d["id"] != nil || d["uid"] != "mintlify-exporter" {
		t.Errorf("id %v (want null), uid %v (want mintlify-exporter, stable)", d["id"], d["uid"])
	}
	inputs := asList(d["__inputs"])
	if len(inputs) != 1 {
		t.Fatalf("__inputs: %v", inputs)
	}
	in := inputs[0].(map[string]any)
	if in["name"] != "DS_PROMETHEUS" || in["type"] != "datasource" || in["pluginId"] != "prometheus" {
		t.Errorf("__inputs[0] = %v", in)
	}
	required := map[string]bool{}
	for _, r := range asList(d["__requires"]) {
		rm := r.(map[string]any)
		required[fmt.Sprint(rm["type"], "/", rm["id"])] = true
	}
	if !required["grafana/grafana"] || !required["datasource/prometheus"] {
		t.Errorf("__requires lacks grafana or the prometheus data source: %v", required)
	}
	var walk func(panels []any)
	walk = func(panels []any) {
		for _, p := range panels {
			pm := p.(map[string]any)
			if typ := fmt.Sprint(pm["type"]); typ != "row" && !required["panel/"+typ] {
				t.Errorf("panel %q is of type %s, which __requires does not name", pm["title"], typ)
			}
			walk(asList(pm["panels"]))
		}
	}
	walk(asList(d["panels"]))

	imported := rawDashboard(t, "chosen-uid")
	for _, v := range asList(imported["templating"].(map[string]any)["list"]) {
		vm := v.(map[string]any)
		if vm["name"] == "datasource" {
			if cur := vm["current"].(map[string]any); cur["value"] != "chosen-uid" {
				t.Errorf("imported: the datasource variable defaults to %v, not the chosen data source", cur["value"])
			}
		}
	}
	for _, uid := range datasourceRefs(imported) {
		if uid != "${datasource}" {
			t.Errorf("imported: a panel or query uses data source %q, not the variable", uid)
		}
	}
}

// TestDashboardProvisioned: provisioning (a file provider, the Grafana
// Helm chart's sidecar) loads the file as it is, without substituting
// __inputs: no panel or query names ${DS_PROMETHEUS}, every one uses the
// datasource variable, and the variable lists Prometheus data sources and
// refreshes on load, so a current value that names none (the literal
// ${DS_PROMETHEUS}) falls back to the first Prometheus.
func TestDashboardProvisioned(t *testing.T) {
	d := rawDashboard(t, "")
	refs := datasourceRefs(d)
	if len(refs) < 20 {
		t.Fatalf("only %d data source references", len(refs))
	}
	for _, uid := range refs {
		if uid != "${datasource}" {
			t.Errorf("a panel or query uses data source %q: provisioning would not resolve it", uid)
		}
	}
	found := false
	for _, v := range asList(d["templating"].(map[string]any)["list"]) {
		vm := v.(map[string]any)
		if vm["name"] != "datasource" {
			continue
		}
		found = true
		if vm["type"] != "datasource" || vm["query"] != "prometheus" || fmt.Sprint(vm["refresh"]) != "1" || vm["multi"] == true {
			t.Errorf("the datasource variable cannot resolve on its own: %v", vm)
		}
	}
	if !found {
		t.Fatal("no datasource variable")
	}
}
