package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestEveryKindIsKnown goes through the table of collector kinds and
// shows that each is known where it must be: the configuration accepts
// it in a project's collectors and in collector_weights, docs/metrics.md
// documents its families, and the simulated API serves its endpoint. The
// tests of that name in internal/cmd/serve and internal/cmd/backfill show
// that the exporter has its --collector flag with the table's default and
// that the backfill can write its counters.
func TestEveryKindIsKnown(t *testing.T) {
	if len(collector.All) < 5 {
		t.Fatalf("only %d kinds in the table", len(collector.All))
	}
	metricsDoc, err := os.ReadFile("docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	const key = "mint_kindstestkey_Q1w2E3r4"
	api, err := mockapi.Start(mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: key, Org: "acme", Scope: mockapi.ReadOnly}},
		Projects: map[string]mockapi.Site{"p": {Seed: 1, Paths: 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()

	for _, k := range collector.All {
		t.Run(k.Name, func(t *testing.T) {
			// The configuration.
			cfg := fmt.Sprintf("keys: [{name: k, api_key_env: K}]\nglobal: {collector_weights: {%s: 2}}\nprojects: [{id: p, collectors: [%s]}]\n", k.Name, k.Name)
			c, err := config.Parse([]byte(cfg))
			if err != nil {
				t.Errorf("the configuration refuses %s: %v", k.Name, err)
			} else if w := c.Global.CollectorWeights.Of(k.Name); w != 2 {
				t.Errorf("collector_weights.%s reads as %v, want 2", k.Name, w)
			}
			if k.Windows.HasMonth() && len(k.Counters()) == 0 {
				t.Errorf("%s counts the month to date but has no counter family", k.Name)
			}
			// Its code, of the one interface the engine fetches through.
			if k.Fetched == nil {
				t.Errorf("%s has no code in collector/", k.Name)
			}
			// The docs.
			for _, f := range append(slices.Clone(k.Families), k.Bookkeeping...) {
				if !strings.Contains(string(metricsDoc), "`"+f.Name+"`") && !strings.Contains(string(metricsDoc), "`"+f.Name+"{") {
					t.Errorf("docs/metrics.md does not document %s", f.Name)
				}
				if !slices.IsSorted(f.Labels) {
					t.Errorf("%s: labels %v not in order", f.Name, f.Labels)
				}
			}
			// The simulated API.
			req, _ := http.NewRequest(http.MethodGet, api.URL()+"/v1/analytics/p/"+k.Endpoint+"?dateFrom=2026-09-01&dateTo=2026-09-02", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("the simulated API answers %d to %s", resp.StatusCode, k.Endpoint)
			}
		})
	}
}

// kindLiteralsAllowed are the non-test files that may spell a kind's
// name as a string literal: the table itself, and each kind's own fetch
// and serving code, where the name is the endpoint's or the wire format's.
var kindLiteralsAllowed = map[string]string{
	// Each collector's row and code.
	"collector/pageviews.go":        "row",
	"collector/visitors.go":         "row",
	"collector/feedback.go":         "row",
	"collector/searches.go":         "row",
	"collector/assistant.go":        "row",
	"collector/conversations.go":    "row",
	"collector/feedback_backlog.go": "row",
	// The simulated API's own endpoint names (it shares no code with the exporter).
	"internal/mockapi/server.go": "wire format",
	// The API's wire format of each kind's endpoint (paths, JSON keys),
	// in the client and in the simulated API, which share no code.
	"internal/mintlify/analytics.go": "wire format",
	"internal/mintlify/feedback.go":  "wire format",
	"internal/mintlify/searches.go":  "wire format",
	"internal/mockapi/analytics.go":  "wire format",
	// The list endpoints assistant (conversations) and feedback (entries).
	"internal/mintlify/conversations.go":   "wire format",
	"internal/mintlify/feedbackentries.go": "wire format",
	"internal/mockapi/conversations.go":    "wire format",
	"internal/mockapi/feedbackentries.go":  "wire format",
	// The simulated API's words for its synthetic page paths, of which
	// two happen to be kind names: page names, not kinds.
	"internal/mockapi/data.go": "page-name words",
}

// TestKindNamesOnlyInTheTable: outside the table and the files above, no
// non-test Go file has a string literal that is a kind's name (struct
// tags included), so a kind is defined in one place.
func TestKindNamesOnlyInTheTable(t *testing.T) {
	names := map[string]bool{}
	for _, k := range collector.All {
		names[k.Name] = true
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || kindLiteralsAllowed[filepath.ToSlash(path)] != "" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			// A struct tag: `yaml:"pageviews"`.
			for name := range names {
				if v == name || strings.Contains(v, `:"`+name+`"`) {
					t.Errorf("%s: the kind name %q as a literal; use its constant in collector/", fset.Position(lit.Pos()), name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
