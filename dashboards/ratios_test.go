package dashboards_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// denominatorPrefixRe matches what may stand between a division and its
// denominator: vector matching and grouping modifiers.
var denominatorPrefixRe = regexp.MustCompile(`^\s*(?:(?:on|ignoring)\s*\([^)]*\)\s*)?(?:(?:group_left|group_right)\s*(?:\([^)]*\))?\s*)?`)

// guardedRe: the denominator's own comparison with a positive number
// (`> 0`, `>= 50`), which drops a zero denominator instead of dividing by it.
var guardedRe = regexp.MustCompile(`(?:>|>=)\s*[0-9.]*[1-9][0-9.]*\s*$|>\s*0\s*$`)

// unguardedDivisions returns the divisions of expr whose denominator is
// neither a number nor a parenthesised expression compared with > 0 (or
// >= a positive number): 0/0 would be NaN, x/0 infinite.
func unguardedDivisions(expr string) []string {
	s := stringRe.ReplaceAllString(expr, `""`)
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '/' {
			continue
		}
		rest := s[i+1:]
		rest = rest[len(denominatorPrefixRe.FindString(rest)):]
		if rest != "" && (isDigit(rest[0]) || rest[0] == '.') {
			continue // a constant, such as / 3600
		}
		if !strings.HasPrefix(rest, "(") {
			out = append(out, strings.TrimSpace(rest))
			continue
		}
		depth, end := 0, -1
		for j := 0; j < len(rest) && end < 0; j++ {
			switch rest[j] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					end = j
				}
			}
		}
		if end < 0 || !guardedRe.MatchString(rest[1:end]) {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

func TestUnguardedDivisions(t *testing.T) {
	for expr, want := range map[string]int{
		`sum(a) / sum(b)`:                                      1,
		`sum(a) / (sum(b) > 0)`:                                0,
		`a / on (job) group_left () (b > 0)`:                   0,
		`a / on (job) group_left () b`:                         1,
		`sum(a) / (sum(b) >= 50) > 0.25`:                       0,
		`sum(a) / (sum(b) >= 0)`:                               1,
		`(time() - x) / 3600`:                                  0,
		`a{path="/docs/a"} / (b{path="/b"} > 0)`:               0,
		`sum(a) / (sum(b) > 0) and on (p) topk(1, sum(c) / d)`: 1,
	} {
		if got := unguardedDivisions(expr); len(got) != want {
			t.Errorf("unguardedDivisions(%s) = %q, want %d", expr, got, want)
		}
	}
}

// TestRatiosGuarded: every ratio of the dashboard and of the rules shows a
// number or nothing, never NaN: its denominator is compared with > 0
// first. A ratio of two increases over a short interval is 0/0 whenever the
// counters did not move in it, which on the exporter's counters (they move
// when it refreshes, every few minutes) is most intervals.
func TestRatiosGuarded(t *testing.T) {
	exprs := dashboardQueries(t, loadDashboard(t))
	for _, file := range []string{alertsFile, "rules.yml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var rf ruleFile
		if err := yaml.Unmarshal(b, &rf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				exprs = append(exprs, query{file + " " + r.Alert + r.Record, r.Expr})
			}
		}
	}
	n := 0
	for _, e := range exprs {
		n += strings.Count(stringRe.ReplaceAllString(e.expr, `""`), "/")
		for _, d := range unguardedDivisions(e.expr) {
			t.Errorf("%s divides by %q without comparing it with > 0 first (0/0 is NaN): %s", e.where, d, e.expr)
		}
	}
	if n < 5 {
		t.Fatalf("found only %d divisions; has the extraction broken?", n)
	}
}
