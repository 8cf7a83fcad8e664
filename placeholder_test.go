package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/config"
)

// placeholderLike matches the ways a project id placeholder gets spelled
// in code (any case, -, _ or nothing between the words, "replace with"
// before); prose ("your project id") has spaces.
var placeholderLike = regexp.MustCompile(`(?i)\b(?:replace[-_]?with[-_]?)?your[-_]?project[-_]?id\b|\breplace[-_]?with[-_]?project[-_]?id\b`)

// placeholderSpellings returns each spelling of a project id placeholder
// in text other than config.PlaceholderProjectID.
func placeholderSpellings(text string) []string {
	var out []string
	for _, m := range placeholderLike.FindAllString(text, -1) {
		if m != config.PlaceholderProjectID {
			out = append(out, m)
		}
	}
	return out
}

// TestOnePlaceholder: the shipped examples (the packages' configuration,
// the Kubernetes ConfigMap, the Helm chart's values) and the docs spell
// the project id placeholder one way, config.PlaceholderProjectID, which
// the exporter and the chart refuse. Only the tests that check other
// spellings are refused too use another.
func TestOnePlaceholder(t *testing.T) {
	// The tests that check the other spellings are refused.
	exempt := []string{"placeholder_test.go", "config/errors_test.go", "config/testdata/placeholder_project_id.yml", "deploy/helm/chartcheck/chart_test.go"}
	n := 0
	err := filepath.WalkDir(".", func(f string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && f != "." && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".github" && d.Name() != ".ci"):
			return filepath.SkipDir // .git, .build, .demo
		case d.IsDir() || slices.Contains(exempt, f):
			return nil
		}
		b, err := os.ReadFile(f)
		if err != nil || bytes.IndexByte(b, 0) >= 0 {
			return err // a binary has no text to check
		}
		n++
		if bad := placeholderSpellings(string(b)); len(bad) > 0 {
			t.Errorf("%s spells the placeholder %q; use %s", f, bad, config.PlaceholderProjectID)
		}
		return nil
	})
	if err != nil || n < 100 {
		t.Fatalf("read %d files: %v", n, err)
	}
	for _, f := range []string{"deploy/systemd/mintlify.yml", "deploy/kubernetes/configmap.yaml",
		"deploy/helm/mintlify-exporter/values.yaml", "README.md", "docs/deployment.md"} {
		if !strings.Contains(readFile(t, f), config.PlaceholderProjectID) {
			t.Errorf("%s does not use the placeholder %s", f, config.PlaceholderProjectID)
		}
	}
	for _, s := range []string{"your-project-id", "REPLACE_WITH_PROJECT_ID", "Your_Project_Id", "yourprojectid"} {
		if len(placeholderSpellings("id: "+s+" # x")) != 1 {
			t.Errorf("the check misses %q", s)
		}
	}
}
