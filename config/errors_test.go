package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBadFiles loads each broken file in testdata and checks that the error
// names the field and, where the file has one, the line.
func TestBadFiles(t *testing.T) {
	cases := map[string][]string{
		"unknown_field.yml":          {"line 3: field pagesize not found in type config.global; did you mean \"page_size\"? (at `pagesize: 100`)"},
		"unknown_project_field.yml":  {"line 7: field window not found in type config.project; did you mean \"windows\"? (at `window: [24h]`)"},
		"unknown_top_field.yml":      {"line 1: field key not found in type config.topLevel; did you mean \"keys\"? (at `key:`)"},
		"bad_regex.yml":              {`line 12: invalid regexp "(": `, "missing closing )", "(at `- '('`)"},
		"missing_key_source.yml":     {`line 2: keys[0] "acme": one of api_key_env or api_key_file is required`},
		"both_key_sources.yml":       {`line 4: keys[0] "acme": api_key_env and api_key_file are mutually exclusive`},
		"bad_window.yml":             {`line 9: invalid window "5x": unknown unit "x"`, "(at `- 5x`)"},
		"window_not_hours.yml":       {"line 6: invalid window \"90m\": window must be a whole number of hours (at `windows: [90m]`)"},
		"window_too_long.yml":        {`line 6: invalid window "13w": window must be at most 90d`, "(at `windows: [24h, 13w]`)"},
		"duplicate_window.yml":       {`line 7: projects[0] "docs": window "1d" is the same length as windows[0] "24h"`},
		"windows_not_list.yml":       {"line 6: cannot unmarshal !!str `24h` into []config.Window (at `windows: 24h`)"},
		"duplicate_project.yml":      {`line 7: projects[1] "docs2": id "proj_123" is already used by projects[0]`},
		"duplicate_project_name.yml": {`line 8: projects[1] "docs": name is already used by projects[0]`},
		"duplicate_key.yml":          {`line 4: keys[1] "acme": name is already used by keys[0]`},
		"unknown_key_ref.yml":        {`line 9: projects[1] "blog": key "nope" is not defined`},
		"key_required.yml":           {`line 7: projects[0] "docs": key is required when more than one key is defined`},
		"bad_key_name.yml":           {`line 2: keys[0] "1acme": name must match`},
		"missing_key_name.yml":       {`line 2: keys[0]: name is required`},
		"bad_project_name.yml":       {`line 6: projects[0] "my docs": name must match`},
		"missing_project_id.yml":     {`line 5: projects[0] "docs": id is required`},
		"bad_project_id.yml":         {`line 5: projects[0] "proj/123": id "proj/123" must not contain`},
		"placeholder_project_id.yml": {
			`line 5: projects[0] "docs": id "YOUR_PROJECT_ID" is the example's placeholder: set your Mintlify project's id`,
			`line 7: projects[1] "your-project-id": id "your-project-id" is the example's placeholder`,
		},
		"bad_page_size.yml": {`line 2: global: page_size must be between 1 and 250, got 500`},
		"bad_int.yml":       {"line 2: cannot unmarshal !!str `lots` into int (at `page_size: lots`)"},
		"bad_concurrency.yml": {
			`line 2: global: page_concurrency must be between 1 and 16, got 0`,
			`line 3: global: job_concurrency must be between 1 and 16, got 17`,
		},
		"bad_max_pages.yml":      {`line 2: global: max_pages must be at least 1, got 0`},
		"min_gt_max_refresh.yml": {`line 3: global: max_refresh_interval (1h) must not be less than min_refresh_interval (2h)`},
		"zero_max_age.yml":       {`line 2: global: max_age must be greater than 0`},
		"bad_duration.yml":       {`line 2: invalid duration "30": not a valid duration string`, "(at `request_timeout: 30`)"},
		"bad_job_poll.yml":       {`line 2: global: job_poll_interval must be at least 5s, got 2s`},
		"bad_api_url.yml":        {`line 2: global: api_url must be an absolute http or https URL, got "api.mintlify.com"`},
		"bad_share.yml":          {`line 4: keys[0] "acme": share must be greater than 0 and at most 1, got 1.5`},
		"bad_expires_at.yml":     {"line 4: expires_at must be a date YYYY-MM-DD, got \"2026-02-30\" (at `expires_at: 2026-02-30`)"},
		"bad_reserve.yml":        {`line 5: keys[0] "acme": reserve must be at least 0 and less than budget_per_hour (50), got 50`},
		"bad_max_paths.yml":      {`line 6: projects[0] "proj_123": max_paths must be 0 (unlimited) or more, got -1`},
		"bad_job.yml":            {`line 6: projects[0] "proj_123": jobs[0]: id "job abc" must not contain whitespace`},
		"duplicate_job.yml":      {`line 6: projects[0] "proj_123": jobs[2] "job_abc" repeats jobs[0]`},
		"no_projects.yml":        {`at least one entry in projects is required`},
		"no_keys.yml":            {`at least one entry in keys is required`},
		"empty.yml":              {`the configuration is empty`},
		"comments_only.yml":      {`the configuration is empty`},
		"multiple_documents.yml": {`line 6: the file holds several YAML documents`},
		"not_a_mapping.yml":      {`line 1: the top level must be a mapping`},
		"duplicate_field.yml":    {"line 4: mapping key \"api_key_env\" already defined at line 3 (at `api_key_env: OTHER`)"},
		"syntax_error.yml":       {`yaml: line `},
	}

	// Every broken file must have a case, so none is added untested.
	files, err := filepath.Glob("testdata/*.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := filepath.Base(f); name != "good.yml" && cases[name] == nil {
			t.Errorf("testdata/%s has no case in TestBadFiles", name)
		}
	}

	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			c, err := LoadFile(path)
			if err == nil {
				t.Fatalf("LoadFile(%s) = %+v, want an error", path, c)
			}
			if c != nil {
				t.Errorf("LoadFile returned a config along with the error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+": ") {
				t.Errorf("error does not start with the file name:\n%s", msg)
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("error\n  %s\ndoes not contain\n  %s", msg, w)
				}
			}
			// yaml's own words, but not the names of the decoder's
			// helper types nor its wrapper around several errors.
			for _, bad := range []string{"config.plain", "unmarshal errors"} {
				if strings.Contains(msg, bad) {
					t.Errorf("error leaks yaml internals (%q):\n%s", bad, msg)
				}
			}
		})
	}
}

// TestParseMatchesLoadFile makes sure Parse reports the same problem
// without the file-name prefix.
func TestParseMatchesLoadFile(t *testing.T) {
	data, err := os.ReadFile("testdata/unknown_key_ref.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(data)
	want := `line 9: projects[1] "blog": key "nope" is not defined in keys`
	if err == nil || err.Error() != want {
		t.Fatalf("Parse error = %v, want %q", err, want)
	}
}

// TestAllProblemsReported: validation lists every problem at once, so an
// operator fixes the file in one round.
func TestAllProblemsReported(t *testing.T) {
	_, err := Parse([]byte(`
global:
  page_size: 0
keys:
  - name: acme
projects:
  - id: a
    key: nope
`))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, w := range []string{
		"line 3: global: page_size",
		`line 5: keys[0] "acme": one of api_key_env or api_key_file is required`,
		`line 8: projects[0] "a": key "nope" is not defined`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error\n%s\nlacks %q", err, w)
		}
	}
}

func TestSuggest(t *testing.T) {
	fields := fieldsOf["config.global"]
	for in, want := range map[string]string{
		"pagesize":       "page_size",
		"PageSize":       "page_size",
		"max-age":        "max_age",
		"request_timout": "request_timeout",
		"colour":         "",
	} {
		if got := suggest(in, fields); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInlineErrors covers wrong shapes that do not need a file each.
func TestInlineErrors(t *testing.T) {
	const keys = "keys: [{name: acme, api_key_env: K}]\n"
	for in, want := range map[string]string{
		keys + "projects: [{id: p, windows: [{a: 1}]}]":                                                          "line 2: expected a window such as 24h or 7d (at `projects: [{id: p, windows: [{a: 1}]}]`)",
		keys + "projects: [{id: p, include_paths: [[x]]}]":                                                       "line 2: expected a regular expression string (at `projects: [{id: p, include_paths: [[x]]}]`)",
		keys + "projects: [{id: p, max_paths: many}]":                                                            "line 2: cannot unmarshal !!str `many` into int (at `projects: [{id: p, max_paths: many}]`)",
		keys + "projects: [{id: p, jobs: ['']}]":                                                                 `projects[0] "p": jobs[0] is empty`,
		keys + "projects: [{id: p, jobs: {a: b}}]":                                                               "line 2: cannot unmarshal !!map into []string (at `projects: [{id: p, jobs: {a: b}}]`)",
		keys + "projects: [{id: 'a b'}]":                                                                         `id "a b" must not contain whitespace`,
		keys + "projects: [{id: 'p!'}]":                                                                          `the id is not a valid project label; set name`,
		keys + "projects: [{id: p}]\nglobal: {max_age: [1]}":                                                     "line 3: expected a duration such as 30s or 1h (at `global: {max_age: [1]}`)",
		keys + "projects: [{id: p}]\nglobal: {job_retention: 0s, request_timeout: 0s, min_refresh_interval: 0s}": "job_retention must be greater than 0",
		keys + "projects: [{id: p}]\nglobal: {api_url: 'https://a/?x=1'}":                                        "must not contain a query",
		keys + "projects: [{id: p}]\nglobal: {request_timeout: 876000h}":                                         "request_timeout must be at least 1s and at most 1h, got 100y",
		keys + "projects: [{id: p}]\nglobal: {request_timeout: 1ms}":                                             "request_timeout must be at least 1s and at most 1h, got 1ms",
		keys + "projects: [{id: p}]\nglobal: {api_url: 'http://127.0.0.1:99999'}":                                `api_url must have a port from 1 to 65535, got "http://127.0.0.1:99999"`,
		keys + "projects: [{id: p}]\nglobal: {api_url: 'https://u:secretpw@a'}":                                  `api_url must not contain a query, fragment or user info, got "https://xxxxx@a"`,
		keys + "projects: [{id: p}]\nglobal: [1]":                                                                "line 3: cannot unmarshal !!seq into config.global (at `global: [1]`)",
		"keys: [{name: acme, api_key_env: K, share: half}]\nprojects: [{id: p}]":                                 "line 1: cannot unmarshal !!str `half` into float64 (at `keys: [{name: acme, api_key_env: K, share: half}]`)",
		"keys: [{name: acme, api_key_env: K, budget_per_hour: 0, reserve: -1}]\nprojects: [{id: p}]":             "budget_per_hour must be at least 1, got 0",
		"keys:\n  - name: a\n    api_key_env: K\nprojects:\n  -\n  - id: p":                                      `line 5: projects[0] is empty`,
		// Anchors work; an error inside one points at the anchor.
		keys + "x: &w [5x]\nprojects: [{id: p, windows: *w}]": "line 2: invalid window \"5x\": unknown unit \"x\" in duration \"5x\" (at `x: &w [5x]`)",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q)\n  error = %v\n  want %q", in, err, want)
		}
	}
}

// TestValidateGoValues: configs built in Go (Single, tests elsewhere) get
// the checks the decoder would have done.
func TestValidateGoValues(t *testing.T) {
	c, err := Single("p", "", "K", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Projects[0].Windows = []Window{{Label: "24h", Duration: time.Hour}, {Label: "5x"}}
	c.Projects[0].IncludePaths = []Regexp{{}}
	c.Projects[0].ExcludePaths = []Regexp{{}}
	err = c.Validate()
	for _, want := range []string{
		`window "24h" has duration 1h, which does not match its label`,
		`invalid window "5x"`,
		"include_paths[0] is not compiled",
		"exclude_paths[0] is not compiled",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("validate() = %v, want %q", err, want)
		}
	}
	if (Project{}).KeyName(&Config{Keys: []Key{{Name: "a"}, {Name: "b"}}}) != "" {
		t.Error("KeyName guessed a key among several")
	}
}

// TestDecodeErrorsHideKeys: an API key written where the file wants
// something else (an unknown field, a number) is in the line an error
// quotes: it is redacted there and in yaml's own words, and a control
// character is escaped.
func TestDecodeErrorsHideKeys(t *testing.T) {
	const key = "mint_pastedsecret_9d3f"
	for _, in := range []string{
		"keys:\n  - name: acme\n    api_key: " + key + "\nprojects: [{id: p}]\n",
		"keys:\n  - name: acme\n    api_key_env: K\n    budget_per_hour: " + key + "\nprojects: [{id: p}]\n",
		"keys:\n  - name: acme\n    api_key_env: K\n    apikey: \"a\\u0007" + key + "\"\nprojects: [{id: p}]\n",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.HasPrefix(err.Error(), "line 3: ") && !strings.HasPrefix(err.Error(), "line 4: ") {
			t.Fatalf("Parse(%q) = %v, want an error with its line", in, err)
		}
		if strings.Contains(err.Error(), "pastedsecret") || strings.Contains(err.Error(), "\a") || !strings.Contains(err.Error(), "[REDACTED]") {
			t.Errorf("Parse(%q):\n%v\nshows the key or a control character", in, err)
		}
	}
}
