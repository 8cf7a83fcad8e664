package dashboards_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTruncationShown: every gauge that says a list is cut short
// (mintlify_*_truncated in docs/metrics.md) has a panel, so the dashboard
// never shows a top list as the whole without saying it is not.
func TestTruncationShown(t *testing.T) {
	doc, err := os.ReadFile("../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("`(mintlify_[a-z_]+_truncated)`").FindAllStringSubmatch(string(doc), -1)
	var want []string
	for _, m := range names {
		if !slices.Contains(want, m[1]) {
			want = append(want, m[1])
		}
	}
	if len(want) < 3 {
		t.Fatalf("docs/metrics.md lists %v, want the feedback, sweep and unanswered ones", want)
	}
	var exprs []string
	for _, p := range allPanels(loadDashboard(t).Panels) {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	all := strings.Join(exprs, "\n")
	for _, n := range want {
		if !regexp.MustCompile(`\b` + n + `\{`).MatchString(all) {
			t.Errorf("no panel shows %s", n)
		}
	}
}
