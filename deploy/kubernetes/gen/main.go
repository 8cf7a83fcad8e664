// Command gen writes deploy/kubernetes/prometheusrule.yaml, the Prometheus
// Operator PrometheusRule holding the groups of dashboards/alerts.yml. Run
// it from the repository root after changing the rules:
//
//	go run ./deploy/kubernetes/gen
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mintlify-exporter/mintlify_exporter/deploy"
)

func main() {
	alerts := flag.String("alerts", "dashboards/alerts.yml", "Prometheus rule file to read.")
	out := flag.String("out", "deploy/kubernetes/prometheusrule.yaml", "PrometheusRule manifest to write.")
	flag.Parse()
	if err := run(*alerts, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(alerts, out string) error {
	in, err := os.ReadFile(alerts)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root, or set -alerts and -out)", err)
	}
	b, err := deploy.PrometheusRule(in)
	if err != nil {
		return fmt.Errorf("%s: %w", alerts, err)
	}
	return os.WriteFile(out, b, 0o644)
}
