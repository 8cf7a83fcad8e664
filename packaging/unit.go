// Package packaging generates the deb and rpm packages' systemd units from deploy/systemd's, so
// that the two cannot drift apart (packaging/gen, at make release).
package packaging

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

const (
	SourceBinary  = "/usr/local/bin/mintlify_exporter"
	PackageBinary = "/usr/bin/mintlify_exporter"
	UnitPath      = "/usr/lib/systemd/system/mintlify_exporter.service"
)

// The receiver's unit is installed, not enabled.
const (
	ExporterUnit = "mintlify_exporter"
	ReceiverUnit = "mintlify_exporter-receiver"
)

// Units are the units the packages install.
var Units = []string{ExporterUnit, ReceiverUnit}

// Flavor is a package format; its unit differs only by the file systemd reads ARGS from.
type Flavor string

const (
	Deb Flavor = "deb"
	RPM Flavor = "rpm"
)

func (f Flavor) EnvironmentFile() (string, error) { return f.EnvironmentFileOf(ExporterUnit) }

func (f Flavor) EnvironmentFileOf(name string) (string, error) {
	switch f {
	case Deb:
		return "/etc/default/" + name, nil
	case RPM:
		return "/etc/sysconfig/" + name, nil
	}
	return "", fmt.Errorf("unknown package format %q (want deb or rpm)", string(f))
}

// UnitOf changes only the header, the binary's path and ExecStart's $ARGS with its
// EnvironmentFile, refusing a source where one is not found exactly once; the rest is byte for byte.
func UnitOf(name string, src []byte, f Flavor) ([]byte, error) {
	if !slices.Contains(Units, name) {
		return nil, fmt.Errorf("unknown unit %q (want one of %s)", name, strings.Join(Units, ", "))
	}
	env, err := f.EnvironmentFileOf(name)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(src), "\n")
	var out bytes.Buffer
	var header, execStart, binaryComment int
	inHeader := true
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if inHeader && strings.HasPrefix(trimmed, "[") {
			inHeader = false
		}
		switch {
		case inHeader && i == 0:
			if !strings.HasPrefix(l, "# ") {
				return nil, fmt.Errorf("the unit does not start with a comment line")
			}
			header++
			fmt.Fprintf(&out, "# systemd unit of the mintlify_exporter %s package, generated from\n", f)
			fmt.Fprintf(&out, "# deploy/systemd/%s.service (packaging/gen): change that\n", name)
			fmt.Fprintf(&out, "# file, not this one. Local changes: systemctl edit %s.\n", name)
		case inHeader && strings.HasPrefix(trimmed, "#") && strings.Contains(l, SourceBinary+" "):
			binaryComment++
			// Keep the descriptions in their column.
			bin := strings.Replace(l, SourceBinary, pad(PackageBinary, len(SourceBinary)), 1)
			out.WriteString(bin)
			desc := strings.Index(bin, "the binary")
			if desc < 0 {
				return nil, fmt.Errorf("the comment line of %s does not say %q", SourceBinary, "the binary")
			}
			out.WriteString(pad("#   "+env, desc) + "ARGS: flags added to the command line\n")
		case !inHeader && strings.HasPrefix(trimmed, "ExecStart="):
			execStart++
			cmd := strings.TrimPrefix(trimmed, "ExecStart=")
			rest, ok := strings.CutPrefix(cmd, SourceBinary)
			if !ok {
				return nil, fmt.Errorf("ExecStart=%s does not run %s", cmd, SourceBinary)
			}
			out.WriteString("# ARGS (empty by default) adds flags, e.g. --web.listen-address.\n")
			out.WriteString("EnvironmentFile=-" + env + "\n")
			out.WriteString("ExecStart=" + PackageBinary + rest + " $ARGS\n")
		default:
			if strings.Contains(l, SourceBinary) {
				return nil, fmt.Errorf("line %d names %s where the packaged unit cannot replace it: %q", i+1, SourceBinary, trimmed)
			}
			out.WriteString(l)
		}
	}
	if header != 1 || execStart != 1 || binaryComment != 1 {
		return nil, fmt.Errorf("want one leading comment, one ExecStart= and one comment line naming %s; found %d, %d and %d",
			SourceBinary, header, execStart, binaryComment)
	}
	return out.Bytes(), nil
}

func pad(s string, width int) string {
	if len(s) >= width {
		return s + " "
	}
	return s + strings.Repeat(" ", width-len(s))
}
