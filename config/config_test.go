package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

func mustWindow(t *testing.T, s string) Window {
	t.Helper()
	w, err := ParseWindow(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func sources(rs []Regexp) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// TestGoodFile checks every value of the README example.
func TestGoodFile(t *testing.T) {
	c, err := LoadFile("testdata/good.yml")
	if err != nil {
		t.Fatal(err)
	}
	wantGlobal := Global{
		APIURL:             "https://api.mintlify.com",
		MinRefreshInterval: Duration(time.Minute),
		MaxRefreshInterval: Duration(6 * time.Hour),
		MaxAge:             Duration(3 * time.Hour),
		PageSize:           250,
		PageConcurrency:    2,
		MaxPages:           400,
		RequestTimeout:     Duration(30 * time.Second),
		JobPollInterval:    Duration(time.Minute),
		JobRetention:       Duration(24 * time.Hour),
		JobConcurrency:     4,
		TrackedJobsFile:    "/var/lib/mintlify_exporter/jobs.txt",
		CollectorWeights:   withDefaultWeights(CollectorWeights{"pageviews": 4, "visitors": 2, "feedback": 1, "searches": 1, "assistant": 3}),
		SearchTopN:         10,
		CollectorTopN:      map[string]int{"conversations": 20},
		CollectorLookBack:  map[string]Duration{},
		FeedbackLookBack:   Duration(90 * 24 * time.Hour),
	}
	if !reflect.DeepEqual(c.Global, wantGlobal) {
		t.Errorf("global = %+v\nwant     %+v", c.Global, wantGlobal)
	}
	wantKeys := []Key{
		{Name: "acme", APIKeyEnv: "MINTLIFY_API_KEY", BudgetPerHour: 100, Reserve: 10, Share: 1, ExpiresAt: Date{time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)}},
		{Name: "partner", APIKeyFile: "/run/secrets/partner_mintlify_key", BudgetPerHour: 100, Reserve: 20, Share: 0.5},
	}
	if !reflect.DeepEqual(c.Keys, wantKeys) {
		t.Errorf("keys = %+v\nwant   %+v", c.Keys, wantKeys)
	}
	if got := []int{c.Keys[0].EffectiveBudget(), c.Keys[1].EffectiveBudget()}; !reflect.DeepEqual(got, []int{90, 40}) {
		t.Errorf("effective budgets = %v, want [90 40]", got)
	}

	if len(c.Projects) != 2 {
		t.Fatalf("got %d projects, want 2", len(c.Projects))
	}
	docs, blog := c.Projects[0], c.Projects[1]
	if docs.ID != "proj_123" || docs.Name != "docs" || docs.Key != "acme" || docs.MaxPaths != 5000 {
		t.Errorf("docs = %+v", docs)
	}
	if !reflect.DeepEqual(docs.Windows, []Window{mustWindow(t, "24h"), mustWindow(t, "7d")}) {
		t.Errorf("docs windows = %+v", docs.Windows)
	}
	if docs.Windows[1].Label != "7d" || docs.Windows[1].Duration != 7*24*time.Hour {
		t.Errorf("7d window = %+v", docs.Windows[1])
	}
	if got := sources(docs.IncludePaths); !reflect.DeepEqual(got, []string{"^/docs/", "^/api-reference/"}) {
		t.Errorf("include_paths = %q", got)
	}
	if got := sources(docs.ExcludePaths); !reflect.DeepEqual(got, []string{"^/docs/internal/"}) {
		t.Errorf("exclude_paths = %q", got)
	}
	if !reflect.DeepEqual(docs.Jobs, []string{"job_abc", "job_def"}) {
		t.Errorf("jobs = %q", docs.Jobs)
	}
	if blog.ID != "proj_456" || blog.Name != "blog" || blog.KeyName(c) != "partner" || blog.MaxPaths != 500 {
		t.Errorf("blog = %+v", blog)
	}
	if len(blog.Windows) != 1 || blog.Windows[0].Label != "1d" || blog.Windows[0].Duration != 24*time.Hour {
		t.Errorf("blog windows = %+v", blog.Windows)
	}
	if c.Keys[1].Name != "partner" || c.Keys[1].Share != 0.5 {
		t.Errorf("keys[1] = %+v", c.Keys[1])
	}
}

// TestDefaults: a minimal file gets every default, and the project name
// and key fall back to the id and the only key.
func TestDefaults(t *testing.T) {
	c, err := Parse([]byte("keys: [{name: acme, api_key_env: K}]\nprojects: [{id: proj_1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Global, DefaultGlobal) {
		t.Errorf("global = %+v, want defaults", c.Global)
	}
	want := DefaultKey
	want.Name, want.APIKeyEnv = "acme", "K"
	if c.Keys[0] != want {
		t.Errorf("key = %+v, want %+v", c.Keys[0], want)
	}
	p := c.Projects[0]
	if p.Name != "proj_1" || p.KeyName(c) != "acme" || p.MaxPaths != 5000 || !reflect.DeepEqual(p.Windows, DefaultProject.Windows) {
		t.Errorf("project = %+v", p)
	}
	if p.IncludePaths != nil || p.ExcludePaths != nil || p.Jobs != nil {
		t.Errorf("project has filters or jobs it was not given: %+v", p)
	}

	// An empty global section means all defaults too, and a partial one
	// only overrides what it names.
	for in, check := range map[string]func(Global) bool{
		"global:\n":                           func(g Global) bool { return reflect.DeepEqual(g, DefaultGlobal) },
		"global: {page_size: 10}\n":           func(g Global) bool { return g.PageSize == 10 && g.MaxPages == DefaultGlobal.MaxPages },
		"global: {api_url: 'http://x/v1/'}\n": func(g Global) bool { return g.APIURL == "http://x/v1" },
	} {
		c, err := Parse([]byte(in + "keys: [{name: acme, api_key_env: K}]\nprojects: [{id: p}]\n"))
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if !check(c.Global) {
			t.Errorf("%q: global = %+v", in, c.Global)
		}
	}
}

// TestDefaultsNotShared: decoding must not write into DefaultProject's
// window slice, or one project's windows would leak into the next; and
// windows are opt-in: a project that lists none has none (the month's
// counters only).
func TestDefaultsNotShared(t *testing.T) {
	c, err := Parse([]byte("keys: [{name: a, api_key_env: K}]\nprojects: [{id: p1, windows: [24h]}, {id: p2}, {id: p3, windows: []}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(DefaultProject.Windows) != 0 || len(c.Projects[1].Windows) != 0 || len(c.Projects[2].Windows) != 0 {
		t.Fatalf("windows are not opt-in: default %v, p2 %v, p3 %v", DefaultProject.Windows, c.Projects[1].Windows, c.Projects[2].Windows)
	}
	if len(c.Projects[0].Windows) != 1 || c.Projects[0].Windows[0].Label != "24h" {
		t.Fatalf("p1 windows = %v", c.Projects[0].Windows)
	}
}

func TestSingle(t *testing.T) {
	c, err := Single("proj_1", "", "MINTLIFY_API_KEY", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Global, DefaultGlobal) || len(c.Keys) != 1 || len(c.Projects) != 1 {
		t.Fatalf("config = %+v", c)
	}
	k, p := c.Keys[0], c.Projects[0]
	if k.Name != "default" || k.APIKeyEnv != "MINTLIFY_API_KEY" || k.APIKeyFile != "" || k.EffectiveBudget() != 90 {
		t.Errorf("key = %+v", k)
	}
	if p.ID != "proj_1" || p.Name != "proj_1" || p.KeyName(c) != "default" || len(p.Windows) != 0 {
		t.Errorf("project = %+v", p)
	}

	c, err = Single("proj_1", "http://localhost:8080/", "MINTLIFY_API_KEY", "/run/key", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Keys[0].APIKeyFile != "/run/key" || c.Keys[0].APIKeyEnv != "" || c.Global.APIURL != "http://localhost:8080" {
		t.Errorf("config = %+v", c)
	}

	// Same validation as a file.
	for _, tc := range []struct{ id, url, env, file, want string }{
		{"", "", "K", "", `projects[0]: id is required`},
		{"p", "ftp://x", "K", "", `api_url must be an absolute http or https URL`},
		{"p", "", "", "", `keys[0] "default": one of api_key_env or api_key_file is required`},
	} {
		if _, err := Single(tc.id, tc.url, tc.env, tc.file, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Single(%q, %q, %q, %q) error = %v, want %q", tc.id, tc.url, tc.env, tc.file, err, tc.want)
		}
	}
}

// TestSingleNamesTheFlags: a configuration without a file names each
// setting by the flag the FlagNames give it, in Single's validation and
// in Validate's; without names, by the file's.
func TestSingleNamesTheFlags(t *testing.T) {
	conversations, _ := collector.Lookup(collector.Conversations)
	names := FlagNames{
		"projects[0].id":                             "--the-id",
		"projects[0].windows":                        "--the-window",
		SettingPath(conversations, spec.TopNSetting): "--the-top-n",
	}
	for _, tc := range []struct {
		names    FlagNames
		want     []string
		unwanted string
	}{
		{names, []string{`--the-id: id "YOUR_PROJECT_ID" is the example's placeholder`}, "projects[0]"},
		{nil, []string{`projects[0] "YOUR_PROJECT_ID": id "YOUR_PROJECT_ID" is the example's placeholder`}, "--the-id"},
	} {
		_, err := Single(PlaceholderProjectID, "", "K", "", tc.names)
		if err == nil || !strings.Contains(err.Error(), tc.want[0]) || strings.Contains(err.Error(), tc.unwanted) {
			t.Errorf("names %v: error %v, want %q", tc.names, err, tc.want[0])
		}
	}
	for _, tc := range []struct {
		names FlagNames
		want  []string
	}{
		{names, []string{`--the-top-n must be between 1 and 100, got 0`, `--the-window "24h" is the same length as the earlier --the-window "1d"`}},
		{nil, []string{`global: collector_top_n.conversations must be between 1 and 100, got 0`, `projects[0] "p": window "24h" is the same length as windows[0] "1d"`}},
	} {
		c, err := Single("p", "", "K", "", tc.names)
		if err != nil {
			t.Fatal(err)
		}
		c.Global.SetTopN(collector.Conversations, 0)
		for _, w := range []string{"1d", "24h"} {
			pw, err := ParseWindow(w)
			if err != nil {
				t.Fatal(err)
			}
			c.Projects[0].Windows = append(c.Projects[0].Windows, pw)
		}
		err = c.Validate()
		for _, want := range tc.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("names %v: Validate() = %v, want %q", tc.names, err, want)
			}
		}
	}
}

// TestRoundTrip: a marshalled config parses back to the same thing, so the
// exporter can print its effective configuration.
func TestRoundTrip(t *testing.T) {
	c, err := LoadFile("testdata/good.yml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- 7d\n", "- 1d\n", "- ^/docs/", "max_age: 3h", "job_retention: 1d"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("marshalled config lacks %q:\n%s", want, out)
		}
	}
	c2, err := Parse(out)
	if err != nil {
		t.Fatalf("re-parse: %v\n%s", err, out)
	}
	out2, err := yaml.Marshal(c2)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(out2) {
		t.Errorf("round trip changed the config:\n%s\n---\n%s", out, out2)
	}
}

// TestRelativePaths: LoadFile resolves file paths against the config's
// directory; Parse leaves them alone.
func TestRelativePaths(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yml")
	data := "global: {tracked_jobs_file: jobs.txt}\nkeys: [{name: a, api_key_file: secrets/key}, {name: b, api_key_file: /abs/key}]\nprojects: [{id: p, key: a}]\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Global.TrackedJobsFile != filepath.Join(dir, "jobs.txt") || c.Keys[0].APIKeyFile != filepath.Join(dir, "secrets/key") || c.Keys[1].APIKeyFile != "/abs/key" {
		t.Errorf("paths not resolved: %+v %+v", c.Global.TrackedJobsFile, c.Keys)
	}
	c, err = Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if c.Keys[0].APIKeyFile != "secrets/key" {
		t.Errorf("Parse changed a relative path: %q", c.Keys[0].APIKeyFile)
	}
}

func TestPathAllowed(t *testing.T) {
	re := func(ss ...string) []Regexp {
		var out []Regexp
		for _, s := range ss {
			r, err := NewRegexp(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	p := Project{IncludePaths: re("^/docs/", "^/api/"), ExcludePaths: re("^/docs/internal/")}
	none := Project{}
	onlyExclude := Project{ExcludePaths: re("draft")}
	for _, tc := range []struct {
		p    Project
		path string
		want bool
	}{
		{p, "/docs/intro", true},
		{p, "/api/users", true},
		{p, "/docs/internal/x", false}, // exclude wins
		{p, "/blog/post", false},
		{p, "/x/docs/", false}, // ^ anchors
		{none, "/anything", true},
		{onlyExclude, "/a/draft-1", false}, // unanchored
		{onlyExclude, "/a/final", true},
	} {
		if got := tc.p.PathAllowed(tc.path); got != tc.want {
			t.Errorf("PathAllowed(%q) with include %v exclude %v = %v, want %v",
				tc.path, sources(tc.p.IncludePaths), sources(tc.p.ExcludePaths), got, tc.want)
		}
	}
}

func TestEffectiveBudget(t *testing.T) {
	for _, tc := range []struct {
		budget, reserve int
		share           float64
		want            int
	}{
		{100, 10, 1, 90},
		{100, 10, 0.5, 45},
		{100, 10, 0.7, 63}, // 90*0.7 is 62.999... in float64
		{100, 10, 1.0 / 3, 30},
		{100, 0, 0.333, 33},
		{10, 9, 0.01, 1}, // never below 1
		{1, 0, 1, 1},
	} {
		k := Key{BudgetPerHour: tc.budget, Reserve: tc.reserve, Share: tc.share}
		if got := k.EffectiveBudget(); got != tc.want {
			t.Errorf("EffectiveBudget(%d, %d, %g) = %d, want %d", tc.budget, tc.reserve, tc.share, got, tc.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "0s": 0, "30s": 30 * time.Second, "1h30m": 90 * time.Minute, "7d": 7 * 24 * time.Hour,
		"1w": 7 * 24 * time.Hour, "1y": 365 * 24 * time.Hour, "1m500ms": time.Minute + 500*time.Millisecond,
		"2w3d": 17 * 24 * time.Hour,
	} {
		got, err := parseDuration(in)
		if err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "30", "h", "1x", "1h1h", "30m1h", "-1h", "1.5h", "1h ", "99999999999999999999s", "300000y"} {
		if got, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %v, want an error", in, got)
		}
	}
	for d, want := range map[time.Duration]string{
		0: "0s", 90 * time.Minute: "1h30m", 24 * time.Hour: "1d", 8 * 24 * time.Hour: "8d", 14 * 24 * time.Hour: "2w", 1500 * time.Millisecond: "1s500ms",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestParseWindow(t *testing.T) {
	for _, ok := range []string{"1h", "24h", "1d", "7d", "1w", "90d", "12w6d"} {
		w, err := ParseWindow(ok)
		if err != nil || w.Label != ok {
			t.Errorf("ParseWindow(%q) = %+v, %v", ok, w, err)
		}
	}
	for in, want := range map[string]string{
		"0h": "longer than zero", "91d": "at most 90d", "90m": "whole number of hours", "1h30m": "whole number of hours", "5x": "unknown unit",
	} {
		if _, err := ParseWindow(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseWindow(%q) error = %v, want %q", in, err, want)
		}
	}
}

// TestDocsExampleIsGoodYML keeps the configuration example of
// docs/configuration.md identical to testdata/good.yml, which the tests
// above check value by value.
func TestDocsExampleIsGoodYML(t *testing.T) {
	readme, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("testdata/good.yml")
	if err != nil {
		t.Fatal(err)
	}
	body := string(good)
	if i := strings.Index(body, "\nglobal:"); i >= 0 {
		body = body[i+1:]
	}
	if !strings.Contains(string(readme), "```yaml\n"+body) {
		t.Fatal("the configuration example in docs/configuration.md differs from config/testdata/good.yml; copy it over")
	}
}

// TestEveryFieldDocumented walks the configuration's types and checks that
// the example of docs/configuration.md sets every field (so the comment
// beside it documents it), at the right depth.
func TestEveryFieldDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for typ.Kind() == reflect.Slice || typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct {
			return
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			fields = append(fields, prefix+name)
			walk(prefix+name+".", f.Type)
		}
	}
	walk("", reflect.TypeOf(Config{}))
	if len(fields) < 30 {
		t.Fatalf("only %d fields found: %v", len(fields), fields)
	}
	// The example is YAML: decode it into nested maps and look each dotted
	// field up, in the first or any list element.
	start := strings.Index(string(doc), "```yaml\n")
	if start < 0 {
		t.Fatal("docs/configuration.md has no YAML example")
	}
	body := string(doc)[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	var example map[string]any
	if err := yaml.Unmarshal([]byte(body), &example); err != nil {
		t.Fatal(err)
	}
	var has func(v any, path []string) bool
	has = func(v any, path []string) bool {
		if len(path) == 0 {
			return true
		}
		switch v := v.(type) {
		case map[string]any:
			child, ok := v[path[0]]
			return ok && has(child, path[1:])
		case []any:
			for _, e := range v {
				if has(e, path) {
					return true
				}
			}
		}
		return false
	}
	for _, f := range fields {
		if !has(example, strings.Split(f, ".")) {
			t.Errorf("the example of docs/configuration.md does not set %s", f)
		}
	}
}

// withDefaultWeights is w with the default weight of each collector it
// leaves out (the example lists those it sets).
func withDefaultWeights(w CollectorWeights) CollectorWeights {
	for name, d := range defaultWeights() {
		if _, ok := w[name]; !ok {
			w[name] = d
		}
	}
	return w
}
