package collector_test

import (
	"fmt"
	"strings"
	"testing"
)

// manyProjects is a config of n projects under one key, page views only,
// with the default budget (100 an hour, reserve 10: 90), max_age (3h) and
// max_refresh_interval (6h).
func manyProjects(n int) string {
	var b strings.Builder
	b.WriteString("global:\n  api_url: %s\nkeys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\nprojects:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: proj-%04d\n    collectors: [pageviews]\n", i)
	}
	return b.String()
}

const cycleWarning = "the key's analytics budget cannot refresh its work within max_age"

// TestBudgetCycleOfAThousandProjects: 1,000 projects of one request a
// round each under one key of 90 requests an hour take 1,000/90 h =
// 40,000 s a round. The exporter says so: one WARN at start with the
// numbers, mintlify_analytics_budget_cycle_seconds 40000, and each
// project's mintlify_refresh_interval_seconds 40000, not the 21,600 of
// max_refresh_interval. A reload warns again, once; a reload to 100
// projects (4,000 s, within max_age) does not.
func TestBudgetCycleOfAThousandProjects(t *testing.T) {
	e := newEnv(t, manyProjects(1000), envOpts{})
	warnings := func() []string {
		var ws []string
		for _, line := range strings.Split(e.logs.String(), "\n") {
			if strings.Contains(line, "level=WARN") && strings.Contains(line, cycleWarning) {
				ws = append(ws, line)
			}
		}
		return ws
	}
	ws := warnings()
	if len(ws) != 1 {
		t.Fatalf("%d cycle warnings at start, want 1:\n%s", len(ws), e.logs.String())
	}
	for _, want := range []string{"key=acme", "units=1000", "requests_per_round=1000", "limit_per_hour=90", "cycle=11h6m40s", "max_age=3h0m0s"} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("the warning lacks %s: %s", want, ws[0])
		}
	}
	out := e.gather()
	if got := mustValue(t, out, `mintlify_analytics_budget_cycle_seconds{key="acme"}`); got != 40000 {
		t.Errorf("cycle %v s, want 40000", got)
	}
	for _, p := range []string{"proj-0000", "proj-0999"} {
		if got := mustValue(t, out, `mintlify_refresh_interval_seconds{collector="pageviews",project="`+p+`"}`); got != 40000 {
			t.Errorf("%s: interval %v s, want 40000", p, got)
		}
	}

	e.reload(manyProjects(1000))
	if n := len(warnings()); n != 2 {
		t.Errorf("%d cycle warnings after a reload, want 2", n)
	}
	e.reload(manyProjects(100))
	if n := len(warnings()); n != 2 {
		t.Errorf("a reload within max_age warned: %d warnings", n)
	}
	if got := mustValue(t, e.gather(), `mintlify_analytics_budget_cycle_seconds{key="acme"}`); got != 4000 {
		t.Errorf("cycle %v s after the reload to 100 projects, want 4000", got)
	}
}
