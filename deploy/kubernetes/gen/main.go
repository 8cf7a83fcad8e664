// Command gen writes deploy/kubernetes/prometheusrule.yaml from dashboards/alerts.yml and rules.yml;
// run it from the repository root after changing them.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mintlify-exporter/mintlify_exporter/deploy"
)

func main() {
	alerts := flag.String("alerts", "dashboards/alerts.yml", "Alerting rule file to read.")
	rules := flag.String("rules", "dashboards/rules.yml", "Recording rule file to read.")
	out := flag.String("out", "deploy/kubernetes/prometheusrule.yaml", "PrometheusRule manifest to write.")
	flag.Parse()
	if err := run(*out, *alerts, *rules); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(out string, files ...string) error {
	var ins [][]byte
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("%w (run from the repository root, or set -alerts, -rules and -out)", err)
		}
		if _, err := deploy.PrometheusRule(in); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		ins = append(ins, in)
	}
	b, err := deploy.PrometheusRule(ins...)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
