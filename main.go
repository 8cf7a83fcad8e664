// Command mintlify_exporter exports Mintlify documentation analytics and
// agent-job state as Prometheus metrics.
package main

import (
	"fmt"
	"os"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/version"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	app := kingpin.New("mintlify_exporter", "Prometheus exporter for Mintlify documentation analytics and agent jobs.")
	app.Version(version.Print("mintlify_exporter"))
	app.HelpFlag.Short('h')
	if _, err := app.Parse(args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}
