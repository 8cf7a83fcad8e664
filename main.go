// Command mintlify_exporter exports Mintlify documentation analytics and
// agent-job state as Prometheus metrics (the default command), creates,
// messages and watches agent jobs (`jobs`), loads past days into
// Prometheus (`backfill`), and acts on documentation-gap alerts as an
// Alertmanager webhook receiver (`receiver`).
//
// Each command lives in its own package under internal/cmd and shares the
// command-line layer of internal/cli; see docs/development.md for the map.
package main

import (
	_ "embed"
	"io"
	"os"
	"strings"

	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/backfill"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/jobs"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/receiver"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
)

// commands are the subcommands, by the first argument that names them;
// any other command line is the exporter's own.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"jobs":     jobs.Run,
	"backfill": backfill.Run,
	"receiver": receiver.Run,
}

// versionFile is the VERSION file: the version of a binary built without
// make's ldflags (go build, go install) too. make stamps the same version,
// and the commit as the revision.
//
//go:embed VERSION
var versionFile string

func main() {
	stampVersion()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// stampVersion gives a binary built without make's ldflags the VERSION
// file's version; go build records the commit itself (the revision).
func stampVersion() {
	if version.Version == "" {
		version.Version = strings.TrimSpace(versionFile)
	}
}

// run dispatches the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := commands[args[0]]; ok {
			return cmd(args[1:], stdout, stderr)
		}
	}
	return serve.Run(args, stdout, stderr)
}
