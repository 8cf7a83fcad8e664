package main

import (
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const modulePath = "github.com/mintlify-exporter/mintlify_exporter"

// allowedImports is which of the project's packages each package may
// import, in its non-test files (paths relative to the modulePath). A new
// edge must be added here on purpose; docs/development.md has the map.
var allowedImports = map[string][]string{
	".":                            {"internal/cmd/backfill", "internal/cmd/jobs", "internal/cmd/receiver", "internal/cmd/serve"},
	"internal/cmd/receiver":        {"internal/cli", "internal/mintlify", "internal/safefile", "internal/secret", "internal/trackfile"},
	"internal/cmd/serve":           {"collector", "config", "internal/cli", "internal/engine", "internal/exporter", "internal/exposition", "internal/mintlify", "internal/mockapi", "internal/secret", "internal/spec", "internal/trackfile"},
	"internal/cmd/jobs":            {"config", "internal/cli", "internal/mintlify", "internal/safefile", "internal/trackfile"},
	"internal/cmd/backfill":        {"collector", "config", "internal/budget", "internal/cli", "internal/mintlify", "internal/safefile", "internal/secret", "internal/spec", "internal/statefiles"},
	"internal/cmd/serve/servetest": {"internal/cmd/serve"},
	"internal/cli":                 {"config", "internal/mintlify", "internal/secret"},
	"internal/exporter":            {"collector", "config", "internal/engine", "internal/mintlify", "internal/spec"},
	"internal/engine":              {"config", "internal/budget", "internal/mintlify", "internal/secret", "internal/spec", "internal/statefiles"},
	"internal/statefiles":          {"internal/budget", "internal/safefile"},
	"collector":                    {"internal/mintlify", "internal/spec"},
	"config":                       {"collector", "internal/mintlify", "internal/safefile", "internal/secret", "internal/spec"},
	"internal/mintlify":            {"internal/secret"},
	"internal/spec":                {"internal/mintlify"},
	"internal/trackfile":           {"internal/mintlify", "internal/safefile"},
	"internal/testkit":             {"internal/cli", "internal/mockapi", "internal/spec", "internal/toolcheck"},
	"e2e/mockapi":                  {"internal/mockapi"},
	"deploy/kubernetes/gen":        {"deploy"},
	"deploy/helm/gen":              {"deploy"},
	"packaging/gen":                {"packaging"},
	// Packages of their own, importing nothing of the project.
	"internal/safefile": nil, "internal/exposition": nil, "internal/mockapi": nil, "internal/budget": nil,
	"internal/leakcheck": nil, "internal/manualclock": nil, "internal/secret": nil,
	"internal/toolcheck": nil, "dashboards": nil, "deploy": nil,
	"packaging": nil,
}

// testOnly are packages only tests may import.
var testOnly = []string{"internal/testkit", "internal/cmd/serve/servetest", "internal/toolcheck", "internal/leakcheck", "internal/manualclock"}

type pkgImports struct {
	code, tests []string // project packages, relative
	external    []string // everything else the non-test files import
}

// projectPackages reads the imports of every package of the modulePath
// (nested modules, such as tools with heavy dependencies, excluded).
func projectPackages(t *testing.T) map[string]pkgImports {
	t.Helper()
	pkgs := map[string]pkgImports{}
	rel := func(paths []string) (own, other []string) {
		for _, p := range paths {
			switch {
			case p == modulePath:
				own = append(own, ".")
			case strings.HasPrefix(p, modulePath+"/"):
				own = append(own, strings.TrimPrefix(p, modulePath+"/"))
			default:
				other = append(other, p)
			}
		}
		return own, other
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // another modulePath
		}
		bp, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		var pi pkgImports
		pi.code, pi.external = rel(bp.Imports)
		pi.tests, _ = rel(append(slices.Clone(bp.TestImports), bp.XTestImports...))
		pkgs[filepath.ToSlash(path)] = pi
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("only %d packages found", len(pkgs))
	}
	return pkgs
}

// closure is pkg and every project package it imports, directly or not.
func closure(pkgs map[string]pkgImports, pkg string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, q := range pkgs[p].code {
			visit(q)
		}
	}
	visit(pkg)
	return seen
}

// TestArchitecture: every import between the project's packages is one
// allowedImports lists; the API client imports nothing of Prometheus; the
// simulated API and the client share no code, nor the simulated API and
// collector; collector does not import the engine (nor the engine collector); the backfill does not
// import the scheduler (internal/exporter, internal/engine); the state files and
// the engine know nothing of Prometheus (the engine: of client_golang), and no package both imports
// client_golang and keeps the budget ledger; internal/exporter reads the engine
// only; no package but main imports a command package, and only
// tests import the test helpers.
func TestArchitecture(t *testing.T) {
	pkgs := projectPackages(t)
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		allowed, listed := allowedImports[p]
		if !listed {
			t.Errorf("package %s is not in allowedImports: add it with the imports it may have", p)
			continue
		}
		for _, q := range pkgs[p].code {
			if !slices.Contains(allowed, q) {
				t.Errorf("%s imports %s, which allowedImports does not allow", p, q)
			}
			if strings.HasPrefix(q, "internal/cmd/") && p != "." && !strings.HasPrefix(p, q+"/") {
				t.Errorf("%s imports the command package %s: only main may", p, q)
			}
			if slices.Contains(testOnly, q) && !slices.Contains(testOnly, p) {
				t.Errorf("%s imports %s, which only tests may import", p, q)
			}
		}
	}
	for _, sched := range []string{"internal/exporter", "internal/engine"} {
		if closure(pkgs, "internal/cmd/backfill")[sched] {
			t.Errorf("the backfill imports %s, the exporter's scheduler: it must share code through smaller packages (the walk, the ledger)", sched)
		}
	}
	if closure(pkgs, "collector")["internal/engine"] {
		t.Error("collector imports internal/engine: the engine is handed the collectors (Options.Collectors) and knows them by internal/spec, and its tests run them")
	}
	if closure(pkgs, "internal/mockapi")["collector"] {
		t.Error("the simulated API imports collector: it keeps its own endpoint names")
	}
	if pkgs["internal/exporter"].code != nil && slices.ContainsFunc(pkgs["internal/exporter"].code, func(q string) bool { return q == "internal/statefiles" || q == "internal/budget" }) {
		t.Error("internal/exporter imports the state files or the budget: it reads the engine (internal/engine.View) and turns it into series, nothing more")
	}
	client := closure(pkgs, "internal/mintlify")
	for _, c := range []struct{ pkg, what string }{{"internal/mintlify", "the API client"}, {"collector", "the collectors"}, {"internal/statefiles", "the state files"}} {
		for p := range closure(pkgs, c.pkg) {
			for _, ext := range pkgs[p].external {
				if strings.HasPrefix(ext, "github.com/prometheus/") {
					t.Errorf("%s imports %s (through %s): it must know nothing of Prometheus", c.what, ext, p)
				}
			}
		}
	}
	for p := range closure(pkgs, "internal/engine") {
		for _, ext := range pkgs[p].external {
			if strings.HasPrefix(ext, "github.com/prometheus/client_golang") {
				t.Errorf("the refresh engine imports %s (through %s): the series are package collector's", ext, p)
			}
		}
	}
	for p := range closure(pkgs, "internal/mockapi") {
		if client[p] {
			t.Errorf("the simulated API and the client share %s: the simulation must share no code with the client", p)
		}
	}
	for _, p := range metricsWithLedger(pkgs) {
		t.Errorf("%s imports both client_golang and internal/statefiles: the series and the state files (the budget ledger among them) belong to different packages", p)
	}
}

// metricsWithLedger are the packages whose non-test files import both
// github.com/prometheus/client_golang and internal/statefiles, where the
// budget ledger is.
func metricsWithLedger(pkgs map[string]pkgImports) []string {
	var both []string
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		prom := slices.ContainsFunc(pkgs[p].external, func(ext string) bool {
			return ext == "github.com/prometheus/client_golang" || strings.HasPrefix(ext, "github.com/prometheus/client_golang/")
		})
		if prom && slices.Contains(pkgs[p].code, "internal/statefiles") {
			both = append(both, p)
		}
	}
	return both
}

// TestMetricsWithLedger: the rule finds a package that imports both (as
// collector did), and not one that imports either alone.
func TestMetricsWithLedger(t *testing.T) {
	pkgs := map[string]pkgImports{
		"collector":           {code: []string{"internal/statefiles", "internal/spec"}, external: []string{"github.com/prometheus/client_golang/prometheus", "time"}},
		"internal/engine":     {code: []string{"internal/statefiles"}},
		"internal/exposition": {external: []string{"github.com/prometheus/client_golang/prometheus/promhttp"}},
	}
	if got := metricsWithLedger(pkgs); !slices.Equal(got, []string{"collector"}) {
		t.Errorf("metricsWithLedger = %v, want [collector]", got)
	}
}

// TestFileSizes: main.go only dispatches (at most 150 lines), and no
// non-test Go file is over 600 lines: a file that long holds more than
// one job.
func TestFileSizes(t *testing.T) {
	sources := sourcesOf(t)
	for _, path := range slices.Sorted(maps.Keys(sources)) {
		lines := strings.Count(string(sources[path]), "\n")
		limit := 600
		if path == "main.go" {
			limit = 150
		}
		if lines > limit {
			t.Errorf("%s has %d lines, more than %d", path, lines, limit)
		}
	}
}

// productionSources are the project's non-test Go files by path (those
// of hidden folders, testdata and node_modules aside), read once for the
// tests that check what production code may hold.
var productionSources = sync.OnceValues(func() (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		files[path] = b
		return err
	})
	return files, err
})

// sourcesOf is productionSources, or the test's end when they cannot be read.
func sourcesOf(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := productionSources()
	if err != nil {
		t.Fatal(err)
	}
	return files
}
