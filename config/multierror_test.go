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
		`line 2: invalid duration "3": not a valid duration string: "3" (at ` + "`max_age: 3`)",
		"line 3: cannot unmarshal !!str `lots` into int (at `page_size: \"lots\"`)",
		`line 4: invalid duration "soon": not a valid duration string: "soon" (at ` + "`min_refresh_interval: soon`)",
		"line 5: field pagesize not found in type config.global; did you mean \"page_size\"? (at `pagesize: 10`)",
		"line 9: cannot unmarshal !!str `abc` into int (at `budget_per_hour: abc`)",
		"line 12: invalid window \"3x\": unknown unit \"x\" in duration \"3x\" (at `windows: [24h, 3x]`)",
		"line 13: invalid regexp \"(\": error parsing regexp: missing closing ): `(` (at `include_paths: [\"(\"]`)",
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
