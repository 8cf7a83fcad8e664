// Package packaging builds what the deb and rpm packages of
// mintlify_exporter hold besides the binary: the systemd units, generated
// from deploy/systemd's (mintlify_exporter.service, and
// mintlify_exporter-receiver.service for the Alertmanager receiver) so that
// the two cannot drift apart. packaging/gen writes them at build time
// (make release).
package packaging

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Paths of the unit in deploy/systemd and of the packaged one.
const (
	SourceBinary  = "/usr/local/bin/mintlify_exporter"
	PackageBinary = "/usr/bin/mintlify_exporter"
	UnitPath      = "/usr/lib/systemd/system/mintlify_exporter.service"
)

// The packaged units by name: the exporter's, and the receiver's
// (installed, not enabled).
const (
	ExporterUnit = "mintlify_exporter"
	ReceiverUnit = "mintlify_exporter-receiver"
)

// Units are the names of the units the packages install, each generated
// from deploy/systemd/NAME.service to /usr/lib/systemd/system/NAME.service.
var Units = []string{ExporterUnit, ReceiverUnit}

// Flavor is a package format: the unit differs only by the file systemd
// reads ARGS from.
type Flavor string

const (
	Deb Flavor = "deb"
	RPM Flavor = "rpm"
)

// EnvironmentFile is the file of ARGS of the exporter's unit.
func (f Flavor) EnvironmentFile() (string, error) { return f.EnvironmentFileOf(ExporterUnit) }

// EnvironmentFileOf is the file of ARGS, the flags added to the command
// line, of the unit name: Debian's /etc/default/NAME or the Red Hat
// family's /etc/sysconfig/NAME.
func (f Flavor) EnvironmentFileOf(name string) (string, error) {
	switch f {
	case Deb:
		return "/etc/default/" + name, nil
	case RPM:
		return "/etc/sysconfig/" + name, nil
	}
	return "", fmt.Errorf("unknown package format %q (want deb or rpm)", string(f))
}

// UnitOf turns deploy/systemd/NAME.service into the packaged unit. It changes
// exactly this and refuses a source where any of it cannot be found
// exactly once:
//
//   - the first comment line says which package and file it comes from;
//   - the binary is /usr/bin/mintlify_exporter, in the comments and in
//     ExecStart, and the comments list the environment file after it;
//   - ExecStart ends with $ARGS, preceded by
//     EnvironmentFile=-/etc/default/NAME (deb) or -/etc/sysconfig/NAME
//     (rpm), which may be missing.
//
// Everything else — the hardening, the credential, the state directory —
// is the source's, byte for byte.
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

// pad fills s with spaces to width, or adds one if it is that long.
func pad(s string, width int) string {
	if len(s) >= width {
		return s + " "
	}
	return s + strings.Repeat(" ", width-len(s))
}
