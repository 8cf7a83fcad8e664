package serve

import (
	"io"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/jobs"
)

// run is the command line as the binary takes it, for the tests that go
// through it: `jobs ...` is the jobs command (the demo and the worked
// example use it beside the exporter), anything else the exporter.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "jobs" {
		return jobs.Run(args[1:], stdout, stderr)
	}
	return Run(args, stdout, stderr)
}
