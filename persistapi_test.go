package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// persistencePackages keep what the exporter and its commands write to
// disk: one job each (docs/development.md).
var persistencePackages = []string{"internal/safefile", "internal/statefiles", "internal/trackfile"}

// TestPersistenceAPITakesPlainValues (#38 case 1): no exported function or
// method of the persistence packages takes a function (directly, or
// through a function type of the package), and no exported struct field
// holds one: their API deals in values (a ledger update is a transaction,
// Begin … Commit), never in callbacks.
func TestPersistenceAPITakesPlainValues(t *testing.T) {
	for _, dir := range persistencePackages {
		fset := token.NewFileSet()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []*ast.File
		funcTypes := map[string]bool{}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			ast.Inspect(f, func(n ast.Node) bool {
				if ts, ok := n.(*ast.TypeSpec); ok {
					if _, ok := ts.Type.(*ast.FuncType); ok {
						funcTypes[ts.Name.Name] = true
					}
				}
				return true
			})
		}
		isFunc := func(e ast.Expr) bool {
			switch e := e.(type) {
			case *ast.FuncType:
				return true
			case *ast.Ident:
				return funcTypes[e.Name]
			case *ast.Ellipsis:
				_, ok := e.Elt.(*ast.FuncType)
				return ok
			}
			return false
		}
		for _, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					for _, p := range d.Type.Params.List {
						if isFunc(p.Type) {
							t.Errorf("%s: %s takes a function: give it a value, or split it into calls that return values", fset.Position(d.Pos()), d.Name.Name)
						}
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						ts, ok := s.(*ast.TypeSpec)
						if !ok || !ts.Name.IsExported() {
							continue
						}
						st, ok := ts.Type.(*ast.StructType)
						if !ok {
							continue
						}
						for _, fld := range st.Fields.List {
							for _, n := range fld.Names {
								if n.IsExported() && isFunc(fld.Type) {
									t.Errorf("%s: %s.%s holds a function: a callback by another name", fset.Position(fld.Pos()), ts.Name.Name, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestNoContextValues (#38 case 1): no production code passes a value
// through a context (context.WithValue): a context value is a hidden
// parameter. The budget reaches the API client as a gated client value
// (mintlify.(*Client).Gated), not as a gate stored in the context.
func TestNoContextValues(t *testing.T) {
	sources := sourcesOf(t)
	for _, path := range slices.Sorted(maps.Keys(sources)) {
		if strings.Contains(string(sources[path]), "context.WithValue(") {
			t.Errorf("%s passes a value through a context: give it as a parameter or a field", path)
		}
	}
}
