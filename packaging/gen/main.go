// Command gen writes a deb or rpm systemd unit from deploy/systemd/NAME.service (packaging.UnitOf);
// make release runs it for each of packaging.Units.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/packaging"
)

func main() {
	src := flag.String("unit", "deploy/systemd/mintlify_exporter.service", "Unit to start from.")
	format := flag.String("format", "deb", "Package format: deb or rpm.")
	out := flag.String("out", "", "File to write (default: standard output).")
	flag.Parse()
	if err := run(*src, packaging.Flavor(*format), *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(src string, f packaging.Flavor, out string) error {
	in, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("%w (run from the repository root, or set -unit)", err)
	}
	b, err := packaging.UnitOf(strings.TrimSuffix(filepath.Base(src), ".service"), in, f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
