package dashboards_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// alertTables are the documents with a summary table of the alerts
// ("| Alert | Fires when |"): each must list every alert of alerts.yml,
// once, and no other. TestAlertRulesShape checks that each alert has a
// runbook section, but not this table, which lacked one alert.
var alertTables = []string{runbookFile, "README.md"}

var alertRowRE = regexp.MustCompile(`(?m)^\| (Mintlify\w+) \| (.+) \|$`)

func TestAlertTablesListEveryAlert(t *testing.T) {
	var want []string
	for _, r := range loadRules(t).Groups[0].Rules {
		if r.Alert != "" {
			want = append(want, r.Alert)
		}
	}
	slices.Sort(want)
	rows := map[string]map[string]string{} // file → alert → "fires when"
	for _, file := range alertTables {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, table, ok := strings.Cut(string(b), "| Alert | Fires when |")
		if !ok {
			t.Fatalf("%s has no table | Alert | Fires when |", file)
		}
		table, _, _ = strings.Cut(table, "\n\n")
		rows[file] = map[string]string{}
		var got []string
		for _, m := range alertRowRE.FindAllStringSubmatch(table, -1) {
			if _, dup := rows[file][m[1]]; dup {
				t.Errorf("%s: %s is listed twice", file, m[1])
			}
			rows[file][m[1]] = m[2]
			got = append(got, m[1])
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s lists the alerts %v; %s has %v", file, got, alertsFile, want)
		}
	}
	// The two tables say the same of each alert.
	for _, a := range want {
		if d, r := rows[runbookFile][a], rows["README.md"][a]; d != r {
			t.Errorf("%s: %s says %q, README.md %q", a, runbookFile, d, r)
		}
	}
}

// TestLoadRulesNamesBothFiles: where the docs tell how to load the rules,
// they name rules.yml beside alerts.yml (the Top pages table needs its
// recorded series), as the example prometheus.yml loads both.
func TestLoadRulesNamesBothFiles(t *testing.T) {
	for file, heading := range map[string]string{runbookFile: "- **Load the rules**", "README.md": "## Load the alerting and recording rules"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(string(b), heading)
		if !ok {
			t.Fatalf("%s: no %q", file, heading)
		}
		para, _, _ := strings.Cut(strings.TrimLeft(after, "\n"), "\n- **")
		para, _, _ = strings.Cut(para, "\n\n")
		for _, f := range []string{"`alerts.yml`", "`rules.yml`"} {
			if !strings.Contains(para, f) {
				t.Errorf("%s: %q does not name %s:\n%s", file, heading, f, para)
			}
		}
	}
	b, err := os.ReadFile("prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"  - alerts.yml\n", "  - rules.yml\n"} {
		if !strings.Contains(string(b), f) {
			t.Errorf("prometheus.yml does not load %s", strings.TrimSpace(f))
		}
	}
}

// gapAlerts fire on documentation gaps, which the receiver can turn into
// a docs pull request.
var gapAlerts = []string{"MintlifyPageThumbsDownSpike", "MintlifyAssistantUnansweredShareHigh", "MintlifyFeedbackWaiting"}

// TestGapRunbooksNameTheReceiver: the "How to fix" of each gap alert's
// runbook names the receiver and links docs/loop.md, which a reader of the
// alert would not find otherwise.
func TestGapRunbooksNameTheReceiver(t *testing.T) {
	b, err := os.ReadFile(runbookFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range gapAlerts {
		_, section, ok := strings.Cut(string(b), "### Runbook: "+a+"\n")
		if !ok {
			t.Errorf("%s: no runbook section", a)
			continue
		}
		section, _, _ = strings.Cut(section, "\n### ")
		_, fix, ok := strings.Cut(section, "**How to fix.**")
		if !ok {
			t.Errorf("%s: the runbook has no **How to fix.**", a)
			continue
		}
		if !strings.Contains(fix, "`mintlify_exporter receiver`") || !strings.Contains(fix, "(loop.md") {
			t.Errorf("%s: the runbook's How to fix does not name `mintlify_exporter receiver` with a link to loop.md:\n%s", a, fix)
		}
	}
}
