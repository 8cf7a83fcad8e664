// Command gen copies the files the Helm chart ships from where they are
// maintained: dashboards/alerts.yml, dashboards/rules.yml and
// dashboards/mintlify.json into deploy/helm/mintlify-exporter/files/
// (Helm reads no file outside the chart). Run it from the repository root
// after changing them:
//
//	go run ./deploy/helm/gen
//
// A test in ./deploy fails while the copies differ.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mintlify-exporter/mintlify_exporter/deploy"
)

func main() {
	for _, f := range deploy.ChartFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v (run from the repository root)\n", err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(deploy.ChartDir, "files", filepath.Base(f)), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
