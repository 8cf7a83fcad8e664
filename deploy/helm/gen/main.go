// Command gen copies deploy.ChartFiles into the chart, as Helm reads no file outside it.
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
