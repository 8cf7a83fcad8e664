// Command mintlify_exporter exports Mintlify metrics; its subcommands live in internal/cmd.
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

var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"jobs":     jobs.Run,
	"backfill": backfill.Run,
	"receiver": receiver.Run,
}

//go:embed VERSION
var versionFile string

func main() {
	stampVersion()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// stampVersion versions a binary built without make's ldflags (go install).
func stampVersion() {
	if version.Version == "" {
		version.Version = strings.TrimSpace(versionFile)
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := commands[args[0]]; ok {
			return cmd(args[1:], stdout, stderr)
		}
	}
	return serve.Run(args, stdout, stderr)
}
