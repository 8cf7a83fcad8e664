package collector

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
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
		for i, f := range append(slices.Clone(k.Families), k.Bookkeeping...) {
			if families[f.Name] || !metricName.MatchString(f.Name) || f.Help == "" || !strings.HasSuffix(f.Help, ".") {
				t.Errorf("family %q: repeated, badly named, or HELP empty or unended", f.Name)
			}
			families[f.Name] = true
			if f.Counter != strings.HasSuffix(f.Name, "_total") {
				t.Errorf("family %q: counter %v, but its name says otherwise", f.Name, f.Counter)
			}
			if i < len(k.Families) && k.Family(f.Name).Name != f.Name {
				t.Errorf("Family(%q) found another", f.Name)
			}
		}
		if _, ok := k.Fetched.(spec.Bookkept); ok != (len(k.Bookkeeping) > 0) {
			t.Errorf("kind %q: bookkeeping families %d, but its code's Bookkeeping %v", k.Name, len(k.Bookkeeping), ok)
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

// TestBookkeepingSamplesItsFamilies: page views' bookkeeping gives one sample of each of its row's
// Bookkeeping families, and none before the first page of a walk.
func TestBookkeepingSamplesItsFamilies(t *testing.T) {
	b := pageViewsRow.Fetched.(spec.Bookkept)
	if got := b.Bookkeeping(&WalkPayload{}, Settings{}); len(got) != 0 {
		t.Errorf("before any page: %v", got)
	}
	walk := mintlify.NewWalk(mintlify.Views, mintlify.DateRange{}, 10)
	walk.Requests = 3
	got := b.Bookkeeping(&WalkPayload{Walk: walk, Hint: 5}, Settings{})
	var names []string
	for _, s := range got {
		names = append(names, s.Family)
		if s.Family == "mintlify_page_views_sweep_requests" && s.Value != 3 {
			t.Errorf("requests %v, want 3", s.Value)
		}
		if s.Family == "mintlify_page_views_sweep_truncated" && s.Value != 1 {
			t.Errorf("a first walk under way is not truncated: %v", s.Value)
		}
	}
	var want []string
	for _, f := range pageViewsRow.Bookkeeping {
		want = append(want, f.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("families %v, want %v", names, want)
	}
}
