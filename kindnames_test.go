package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// kindNamers are the packages that may name a collector: the collectors, the API client (which knows its endpoints itself) and the
// simulated API.
var kindNamers = []string{"collector", "internal/mintlify", "internal/mockapi"}

// TestKindsNamedOnlyInTheirPackages: outside kindNamers, no non-test
// file names one kind, neither by its constant (collector.PageViews) nor
// quoted ("pageviews"). Whatever one kind has of its own (a setting, a
// default, a flag) is in its row or its code, so a new kind needs no edit
// elsewhere and an old one no special case.
func TestKindsNamedOnlyInTheirPackages(t *testing.T) {
	consts := kindConstants(t)
	var names []string
	for _, k := range collector.All {
		names = append(names, regexp.QuoteMeta(strconv.Quote(k.Name)))
	}
	re := regexp.MustCompile(`\bcollector\.(` + strings.Join(consts, "|") + `)\b|` + strings.Join(names, "|"))
	found := 0
	sources := sourcesOf(t)
	for _, path := range slices.Sorted(maps.Keys(sources)) {
		if slices.ContainsFunc(kindNamers, func(dir string) bool { return strings.HasPrefix(filepath.ToSlash(path), dir+"/") }) {
			continue
		}
		for i, line := range strings.Split(string(sources[path]), "\n") {
			if m := re.FindString(line); m != "" {
				found++
				t.Errorf("%s:%d names the kind %s: say it in its file in collector/", path, i+1, m)
			}
		}
	}
	t.Logf("%d places name a kind outside %v", found, kindNamers)
}

// kindConstants are the names of collector/'s string constants whose
// value is a collector's name, one in each collector's file.
func kindConstants(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("collector/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || len(vs.Values) != len(vs.Names) {
				return true
			}
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, _ := strconv.Unquote(lit.Value); slices.Contains(collector.Names(), s) {
						consts = append(consts, vs.Names[i].Name)
					}
				}
			}
			return true
		})
	}
	if len(consts) != len(collector.All) {
		t.Fatalf("collector/ declares %d constants for %d collectors", len(consts), len(collector.All))
	}
	return consts
}
