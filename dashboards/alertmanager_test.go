package dashboards_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAlertmanagerConfigAmtool checks the quick start's Alertmanager
// configuration with amtool, and that prometheus.yml sends the alerts to
// the address the README starts Alertmanager on.
func TestAlertmanagerConfigAmtool(t *testing.T) {
	bin, err := exec.LookPath("amtool")
	if err != nil {
		msg := "amtool not found in PATH; install it with `apt-get install prometheus-alertmanager` (Debian) to check alertmanager.yml"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if out, err := exec.Command(bin, "check-config", "alertmanager.yml").CombinedOutput(); err != nil {
		t.Fatalf("amtool check-config alertmanager.yml: %v\n%s", err, out)
	}
	prom, err := os.ReadFile("prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const addr = "127.0.0.1:9093"
	if !strings.Contains(string(prom), "- "+addr) {
		t.Errorf("prometheus.yml does not send alerts to %s", addr)
	}
	if !strings.Contains(string(readme), "--config.file=dashboards/alertmanager.yml") || !strings.Contains(string(readme), "--web.listen-address="+addr) {
		t.Errorf("the README's quick start does not start Alertmanager with dashboards/alertmanager.yml on %s", addr)
	}
}
