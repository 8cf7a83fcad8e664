package config

import (
	"strings"
	"testing"
)

// Every check of validate, each failing once, in one file: the messages
// come in the file's order (global, keys, projects) and, within a key or
// a project, in the order of its fields, so an edit-and-retry round reads
// top to bottom.
func TestValidateReportsEveryErrorInOrder(t *testing.T) {
	const file = `global: {page_size: 0, search_top_n: 0}
keys:
  - {budget_per_hour: 0, share: 2}
  - {name: a, api_key_env: K, api_key_file: f, reserve: -1}
  - {name: a, api_key_env: K}
  - {name: "b c", api_key_env: K}
projects:
  - {id: ".."}
  - {id: p, name: "bad name", key: nokey, max_paths: -1, collectors: [nope, pageviews, pageviews], jobs: ["", "a b", "x/y", j, j]}
  - {id: p, name: q}
  - {id: r, name: q, key: a}
  - {id: "s t", key: a}
  - {id: "a:b", key: a}
`
	_, err := Parse([]byte(file))
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`line 1: global: page_size must be between 1 and 250, got 0`,
		`line 1: global: search_top_n must be between 1 and 100, got 0`,
		`line 3: keys[0]: name is required`,
		`line 3: keys[0]: one of api_key_env or api_key_file is required`,
		`line 3: keys[0]: budget_per_hour must be at least 1, got 0`,
		`line 3: keys[0]: reserve must be at least 0 and less than budget_per_hour (0), got 10`,
		`line 3: keys[0]: share must be greater than 0 and at most 1, got 2`,
		`line 4: keys[1] "a": api_key_env and api_key_file are mutually exclusive; set only one`,
		`line 4: keys[1] "a": reserve must be at least 0 and less than budget_per_hour (100), got -1`,
		`line 5: keys[2] "a": name is already used by keys[1]`,
		`line 6: keys[3] "b c": name must match ^[a-zA-Z_][a-zA-Z0-9_-]*$`,
		`line 8: projects[0] "..": id ".." must not be a dot segment (it would change the API path)`,
		`line 8: projects[0] "..": key is required when more than one key is defined`,
		`line 9: projects[1] "bad name": name must match ^[a-zA-Z0-9_.-]+$`,
		`line 9: projects[1] "bad name": key "nokey" is not defined in keys`,
		`line 9: projects[1] "bad name": max_paths must be 0 (unlimited) or more, got -1`,
		`line 9: projects[1] "bad name": collectors[0] "nope" is not one of ` + strings.Join(AnalyticsCollectors, ", "),
		`line 9: projects[1] "bad name": collectors[2] "pageviews" is listed twice`,
		`line 9: projects[1] "bad name": jobs[0] is empty`,
		`line 9: projects[1] "bad name": jobs[1]: id "a b" must not contain whitespace or control characters`,
		`line 9: projects[1] "bad name": jobs[2]: id "x/y" must not contain '/', '\', '?', '#', '%' or unprintable characters`,
		`line 9: projects[1] "bad name": jobs[4] "j" repeats jobs[3]`,
		`line 10: projects[2] "q": id "p" is already used by projects[1]`,
		`line 10: projects[2] "q": key is required when more than one key is defined`,
		`line 11: projects[3] "q": name is already used by projects[2]; names are the project label and must differ`,
		`line 12: projects[4] "s t": id "s t" must not contain whitespace or control characters`,
		`line 13: projects[5] "a:b": the id is not a valid project label; set name to a value matching ^[a-zA-Z0-9_.-]+$`,
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Errorf("%d errors, want %d:\n%s", len(got), len(want), err)
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("error %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}
