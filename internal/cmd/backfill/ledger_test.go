package backfill

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestBackfillReplacesACorruptLedger: a corrupt ledger shared through
// --storage.path does not stop the backfill: it is moved aside, a fresh
// one written, the run says so, and, the key's hour counting as spent,
// its first request waits for that hour to end.
func TestBackfillReplacesACorruptLedger(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 1, Paths: 20}, nil)
	ledgerPath := h.statePath() + ".ledger"
	if err := os.MkdirAll(filepath.Dir(ledgerPath), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ledgerPath, []byte("garbage{"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "h.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-10", "--to", "2026-09-11", "--yes", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "moved aside") || !strings.Contains(stderr, "counts as spent until") {
		t.Errorf("the run does not say the ledger was replaced:\n%s", stderr)
	}
	if aside, _ := filepath.Glob(ledgerPath + ".corrupt-*"); len(aside) != 1 {
		t.Errorf("moved aside: %v, want one file", aside)
	}
	reqs := h.views()
	if len(reqs) == 0 {
		t.Fatal("no request made")
	}
	if first := reqs[0].Time; first.Before(backfillNow.Add(time.Hour)) {
		t.Errorf("first request at %s, within the hour the lost ledger may have spent (until %s)", first, backfillNow.Add(time.Hour))
	}
}

// TestInstalledBackfillCommands: the commands docs/backfill.md gives for
// running the backfill as an installed exporter's user use only flags the
// backfill has, and the user, paths and credential of what they run
// beside: the systemd unit, the package, the image and the Helm chart.
func TestInstalledBackfillCommands(t *testing.T) {
	root := testkit.RepoRoot(t)
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	doc := read("docs/backfill.md")
	start := strings.Index(doc, "## Beside an installed exporter")
	if start < 0 {
		t.Fatal("docs/backfill.md has no section on running beside an installed exporter")
	}
	section := doc[start:]
	section = section[:strings.Index(section[3:], "\n## ")+3]
	var commands []string
	for i, block := range strings.Split(section, "```") {
		if i%2 == 1 {
			commands = append(commands, strings.ReplaceAll(strings.TrimPrefix(block, "sh\n"), "\\\n", " "))
		}
	}
	if len(commands) != 4 {
		t.Fatalf("%d commands, want 4 (systemd-run, podman exec, podman run, kubectl exec)", len(commands))
	}
	app, _ := newBackfillApp(&backfillOptions{})
	known := map[string]bool{}
	for _, f := range app.Model().Flags {
		known[f.Name] = true
	}
	for _, cmd := range commands {
		fields := strings.Fields(cmd)
		at := slices.Index(fields, "backfill")
		if at < 0 || !strings.HasSuffix(fields[at-1], "mintlify_exporter") && fields[at-1] != "mintlify_exporter:VERSION" {
			t.Errorf("no backfill run in %q", cmd)
			continue
		}
		for _, f := range fields[at+1:] {
			if name, ok := strings.CutPrefix(f, "--"); ok {
				name, _, _ = strings.Cut(name, "=")
				if !known[name] {
					t.Errorf("--%s is no backfill flag (in %q)", name, cmd)
				}
			}
		}
		if !strings.Contains(cmd, "--storage.path=/var/lib/mintlify_exporter/state.json") {
			t.Errorf("%q does not share the exporter's state file", cmd)
		}
	}
	unit := read("deploy/systemd/mintlify_exporter.service")
	for _, want := range []string{"StateDirectory=mintlify_exporter", "StateDirectoryMode=0750", "DynamicUser=yes",
		"LoadCredential=mintlify_api_key:/etc/mintlify_exporter/api_key"} {
		if !strings.Contains(unit, "\n"+want+"\n") || !strings.Contains(commands[0], "-p "+want+" ") {
			t.Errorf("%s: not both in the unit and the systemd-run command", want)
		}
	}
	if !strings.Contains(read("packaging/nfpm.yaml"), "dst: /usr/bin/mintlify_exporter\n") || !strings.Contains(commands[0], " /usr/bin/mintlify_exporter backfill") {
		t.Error("the systemd-run command does not run the packaged binary")
	}
	if !strings.Contains(read("Dockerfile"), "\nUSER 65532:65532\n") || !strings.Contains(commands[2], "--user 65532:65532") {
		t.Error("podman run does not run as the image's user")
	}
	deployment := read("deploy/helm/mintlify-exporter/templates/deployment.yaml")
	for _, want := range []string{"--config.file=/etc/mintlify/config/mintlify.yml", `--storage.path={{ .Values.persistence.mountPath | trimSuffix "/" }}/state.json`, "- name: mintlify-exporter\n"} {
		if !strings.Contains(deployment, want) {
			t.Errorf("the chart's deployment has no %q", want)
		}
	}
	if !strings.Contains(read("deploy/helm/mintlify-exporter/values.yaml"), "\n  mountPath: /var/lib/mintlify_exporter\n") {
		t.Error("the chart's default persistence.mountPath is not /var/lib/mintlify_exporter")
	}
	if !strings.Contains(commands[3], "--config.file=/etc/mintlify/config/mintlify.yml") || !strings.Contains(commands[3], "-c mintlify-exporter ") {
		t.Error("kubectl exec does not use the chart's container and configuration")
	}
}
