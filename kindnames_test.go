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

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
)

// kindNamers are the packages that may name a kind: the table, the kinds'
// code, the API client (which knows its endpoints itself) and the
// simulated API.
var kindNamers = []string{"internal/kind", "internal/source", "internal/mintlify", "internal/mockapi"}

// TestKindsNamedOnlyInTheirPackages: outside kindNamers, no non-test
// file names one kind, neither by its constant (kind.PageViews) nor
// quoted ("pageviews"). Whatever one kind has of its own (a setting, a
// default, a flag) is in its row or its code, so a new kind needs no edit
// elsewhere and an old one no special case.
func TestKindsNamedOnlyInTheirPackages(t *testing.T) {
	consts := kindConstants(t)
	var names []string
	for _, k := range kind.All {
		names = append(names, regexp.QuoteMeta(strconv.Quote(k.Name)))
	}
	re := regexp.MustCompile(`\bkind\.(` + strings.Join(consts, "|") + `)\b|` + strings.Join(names, "|"))
	found := 0
	sources := sourcesOf(t)
	for _, path := range slices.Sorted(maps.Keys(sources)) {
		if slices.ContainsFunc(kindNamers, func(dir string) bool { return strings.HasPrefix(filepath.ToSlash(path), dir+"/") }) {
			continue
		}
		for i, line := range strings.Split(string(sources[path]), "\n") {
			if m := re.FindString(line); m != "" {
				found++
				t.Errorf("%s:%d names the kind %s: say it in its row (internal/kind) or its code (internal/source)", path, i+1, m)
			}
		}
	}
	t.Logf("%d places name a kind outside %v", found, kindNamers)
}

// kindConstants are the names of internal/kind's string constants whose
// value is a kind's name.
func kindConstants(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "internal/kind/kind.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != len(vs.Names) {
			return true
		}
		for i, v := range vs.Values {
			if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, _ := strconv.Unquote(lit.Value); slices.Contains(kind.Names(), s) {
					consts = append(consts, vs.Names[i].Name)
				}
			}
		}
		return true
	})
	if len(consts) != len(kind.All) {
		t.Fatalf("internal/kind/kind.go declares %d constants for %d kinds", len(consts), len(kind.All))
	}
	return consts
}
