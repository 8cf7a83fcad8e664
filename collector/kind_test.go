package collector

import (
	"regexp"
	"strings"
	"testing"
)

// TestTable: names and family names are unique and well formed, a
// counter's name ends in _total and a gauge's does not, every kind has an
// endpoint and families, and at least one kind is on by default.
func TestTable(t *testing.T) {
	metricName := regexp.MustCompile(`^mintlify_[a-z_]+$`)
	names, families := map[string]bool{}, map[string]bool{}
	for _, k := range All {
		if names[k.Name] || k.Name == "" || k.Endpoint == "" || k.Summary == "" || len(k.Families) == 0 {
			t.Errorf("kind %q: empty or repeated name, no endpoint, summary or families", k.Name)
		}
		names[k.Name] = true
		if got, ok := Lookup(k.Name); !ok || got.Name != k.Name {
			t.Errorf("Lookup(%q) = %q, %v", k.Name, got.Name, ok)
		}
		for _, f := range k.Families {
			if families[f.Name] || !metricName.MatchString(f.Name) || f.Help == "" || !strings.HasSuffix(f.Help, ".") {
				t.Errorf("family %q: repeated, badly named, or HELP empty or unended", f.Name)
			}
			families[f.Name] = true
			if f.Counter != strings.HasSuffix(f.Name, "_total") {
				t.Errorf("family %q: counter %v, but its name says otherwise", f.Name, f.Counter)
			}
			if k.Family(f.Name).Name != f.Name {
				t.Errorf("Family(%q) found another", f.Name)
			}
		}
		if k.Windows.HasMonth() != (len(k.Counters()) > 0) {
			t.Errorf("kind %q: month-to-date counters %d, windows rule %d", k.Name, len(k.Counters()), k.Windows)
		}
	}
	if len(All.Defaults()) == 0 || len(Names()) != len(All) {
		t.Errorf("defaults %v, names %v", All.Defaults(), Names())
	}
	if _, ok := fetchedOf("nope"); ok {
		t.Error("Lookup found a kind not in the table")
	}
}
