package main

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestEveryKindIsKnown goes through the table of collector kinds and
// shows that each is known where it must be: the configuration accepts
// it in a project's collectors and in collector_weights, the exporter has
// its --collector flag with the table's default, the backfill can write
// its counters, docs/metrics.md documents its families, and the
// simulated API serves its endpoint.
func TestEveryKindIsKnown(t *testing.T) {
	if len(kind.All) < 5 {
		t.Fatalf("only %d kinds in the table", len(kind.All))
	}
	exporterFlags := map[string][]string{}
	for _, f := range serve.App().Model().Flags {
		exporterFlags[f.Name] = f.Default
	}
	backfillFlags := map[string]bool{}
	for _, f := range backfill.App().Model().Flags {
		backfillFlags[f.Name] = true
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

	for _, k := range kind.All {
		t.Run(k.Name, func(t *testing.T) {
			// The configuration.
			cfg := fmt.Sprintf("keys: [{name: k, api_key_env: K}]\nglobal: {collector_weights: {%s: 2}}\nprojects: [{id: p, collectors: [%s]}]\n", k.Name, k.Name)
			c, err := config.Parse([]byte(cfg))
			if err != nil {
				t.Errorf("the configuration refuses %s: %v", k.Name, err)
			} else if w := c.Global.CollectorWeights.Of(k.Name); w != 2 {
				t.Errorf("collector_weights.%s reads as %v, want 2", k.Name, w)
			}
			// The exporter's flag and its default.
			def, ok := exporterFlags["collector."+k.Name]
			if !ok {
				t.Errorf("the exporter has no --collector.%s", k.Name)
			} else if want := fmt.Sprint(k.Default); strings.Join(def, "") != want {
				t.Errorf("--collector.%s defaults to %v, the table says %s", k.Name, def, want)
			}
			// The backfill writes every kind with month-to-date counters.
			if k.Windows == kind.MonthAndWindows && k.Name != kind.PageViews && !backfillFlags["collector."+k.Name] {
				t.Errorf("the backfill has no --collector.%s for its counters", k.Name)
			}
			if k.Windows == kind.MonthAndWindows && len(k.Counters()) == 0 {
				t.Errorf("%s counts the month to date but has no counter family", k.Name)
			}
			// The docs.
			for _, f := range k.Families {
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
