package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryDecodingErrorInLineOrder: a file with several bad values gets
// all of them reported at once, top to bottom, each with its line; from a
// file, each also starts with the file name.
func TestEveryDecodingErrorInLineOrder(t *testing.T) {
	const doc = `global:
  max_age: 3
  page_size: "lots"
  min_refresh_interval: soon
  pagesize: 10
keys:
  - name: main
    api_key_env: K
    budget_per_hour: abc
projects:
  - id: p1
    windows: [24h, 3x]
    include_paths: ["("]
`
	want := []string{
		`line 2: global.max_age: invalid duration "3"`,
		`line 3: global.page_size: expected a number, got "lots"`,
		`line 4: global.min_refresh_interval: invalid duration "soon"`,
		`line 5: unknown field "pagesize" in global (did you mean "page_size"?)`,
		`line 9: keys[0].budget_per_hour: expected a number, got "abc"`,
		`line 12: projects[0].windows[1]: invalid window "3x"`,
		`line 13: projects[0].include_paths[0]: invalid regexp "("`,
	}
	check := func(t *testing.T, err error, prefix string) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != len(want) {
			t.Fatalf("%d errors, want %d:\n%v", len(lines), len(want), err)
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], prefix+w) {
				t.Errorf("error %d = %q, want it to start with %q", i+1, lines[i], prefix+w)
			}
		}
	}
	_, err := Parse([]byte(doc))
	check(t, err, "")

	path := filepath.Join(t.TempDir(), "mintlify.yml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFile(path)
	check(t, err, path+": ")
}

// TestValidationErrorsInLineOrder: the validator's findings too are sorted
// by line and each located.
func TestValidationErrorsInLineOrder(t *testing.T) {
	_, err := Parse([]byte(`global:
  page_size: 900
keys:
  - name: main
    api_key_env: K
    budget_per_hour: 0
projects:
  - id: p1
`))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	last := 0
	for _, l := range lines {
		var n int
		if _, scanErr := fmt.Sscanf(l, "line %d:", &n); scanErr != nil {
			t.Fatalf("error %q has no line", l)
		}
		if n < last {
			t.Errorf("errors out of line order:\n%v", err)
		}
		last = n
	}
}
