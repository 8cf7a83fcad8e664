package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLicense checks that LICENSE is the whole Apache License 2.0 text,
// terms and appendix.
func TestLicense(t *testing.T) {
	b, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"Apache License\n                           Version 2.0, January 2004",
		"TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
		"9. Accepting Warranty or Additional Liability.",
		"END OF TERMS AND CONDITIONS",
		"APPENDIX: How to apply the Apache License to your work.",
		"limitations under the License.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}
	if n := strings.Count(s, "\n"); n < 200 {
		t.Errorf("LICENSE has %d lines; the Apache-2.0 text has 201", n)
	}
}

// module is what `go list -deps -json` says of a package's module.
type module struct {
	Path, Version, Dir string
}

// TestDependencyLicenses reads the license of every module built into the
// binary from the module cache: each must be one the project can ship
// under Apache-2.0, and every Apache-2.0 module that carries a NOTICE file
// must be named in the project's NOTICE (Apache-2.0 §4(d)).
func TestDependencyLicenses(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to list the dependencies")
	}
	out, err := exec.Command(gobin, "list", "-deps", "-json=Module", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	mods := map[string]module{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct{ Module *module }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Module != nil && p.Module.Version != "" {
			mods[p.Module.Path] = *p.Module
		}
	}
	if len(mods) == 0 {
		t.Fatal("go list found no dependency modules")
	}
	notice, err := os.ReadFile("NOTICE")
	if err != nil {
		t.Fatal(err)
	}
	for path, m := range mods {
		if m.Dir == "" {
			t.Errorf("%s@%s is not in the module cache (go mod download)", path, m.Version)
			continue
		}
		lic := licenseOf(t, m.Dir)
		if lic == "" {
			t.Errorf("%s@%s: no license recognised (Apache-2.0, MIT or BSD-3-Clause expected)", path, m.Version)
		}
		if _, err := os.Stat(filepath.Join(m.Dir, "NOTICE")); err == nil && !bytes.Contains(notice, []byte(path)) {
			t.Errorf("%s@%s (%s) has a NOTICE file that the project's NOTICE does not carry", path, m.Version, lic)
		}
	}
}

var licenseMarkers = []struct{ name, re string }{
	{"Apache-2.0", `Apache License\s+Version 2\.0, January 2004`},
	{"MIT", `Permission\s+is\s+hereby\s+granted,\s+free\s+of\s+charge,\s+to\s+any\s+person\s+obtaining\s+a\s+copy`},
	{"BSD-3-Clause", `(?s)Redistributions of source code.*Redistributions in binary form.*Neither the name`},
}

// licenseOf names the license of the module in dir from its LICENSE or
// COPYING file, or returns "" if it recognises none.
func licenseOf(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := strings.ToUpper(e.Name())
		if !strings.HasPrefix(n, "LICENSE") && !strings.HasPrefix(n, "COPYING") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range licenseMarkers {
			if regexp.MustCompile(l.re).Match(b) {
				return l.name
			}
		}
	}
	return ""
}
