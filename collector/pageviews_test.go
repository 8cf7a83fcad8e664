package collector

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// TestEveryKindHasCode: each kind of the table has its code here, all of
// one interface (spec.Fetched); page views and visitors, and they alone,
// are walked page by page.
func TestEveryKindHasCode(t *testing.T) {
	for _, name := range Names() {
		_, fetched := fetchedOf(name)
		_, walks := walkedOf(name)
		if !fetched || walks != (name == PageViews || name == Visitors) {
			t.Errorf("%s: fetched %v, walked %v", name, fetched, walks)
		}
	}
}

// TestWalkSamplesAreOfTheTable: a walked kind's samples are of the gauge
// families of its row, with its labels (path and traffic for a path,
// traffic for the site, none for the de-duplicated total), and the month
// shows the counters of page views' path and site families.
func TestWalkSamplesAreOfTheTable(t *testing.T) {
	for _, name := range []string{PageViews, Visitors} {
		k, _ := Lookup(name)
		w, ok := walkedOf(name)
		if !ok || w.rows != mintlify.RowsEndpoint(k.Endpoint) {
			t.Fatalf("%s: walked %v, endpoint %q, want the row's %q", name, ok, w.rows, k.Endpoint)
		}
		labels := func(family string) []string {
			i := slices.IndexFunc(k.Families, func(f spec.Family) bool { return f.Name == family && !f.Counter })
			if i < 0 {
				t.Fatalf("%s: %q is no gauge family of its row", name, family)
			}
			return slices.DeleteFunc(slices.Clone(k.Families[i].Labels), func(l string) bool { return l == "project" || l == "window" })
		}
		var got []string
		w.pathSamples([]mintlify.PageViewRow{{Path: "/a", Counts: mintlify.Counts{Human: 2, AI: 1}}}, func(path, traffic string, v float64) {
			got = append(got, fmt.Sprintf("%s %s %v", path, traffic, v))
		})
		if want := []string{"/a ai 1", "/a human 2"}; !slices.Equal(got, want) {
			t.Errorf("%s: path samples %q, want %q", name, got, want)
		}
		if !slices.Equal(labels(w.page), []string{"path", "traffic"}) {
			t.Errorf("%s: %s has labels %v", name, w.page, labels(w.page))
		}
		for _, s := range w.siteSamples(mintlify.Counts{Human: 2, AI: 1, Total: 4}) {
			var names []string
			for _, l := range s.Labels {
				names = append(names, l.Name)
			}
			if want := labels(s.Family); !slices.Equal(names, want) {
				t.Errorf("%s: %s has labels %v, want %v", name, s.Family, names, want)
			}
		}
		if k.Windows.HasMonth() {
			for _, f := range []string{w.page, w.site} {
				if m, ok := k.MonthOf(f); !ok || !m.Counter {
					t.Errorf("%s: %s has no month counter", name, f)
				}
			}
		}
	}
}

// TestSiteSamples: page views show what the total holds beyond human + ai
// as other (and nothing when it holds nothing more); visitors show their
// de-duplicated total under its own family, never as other.
func TestSiteSamples(t *testing.T) {
	views, _ := walkedOf(PageViews)
	visitors, _ := walkedOf(Visitors)
	show := func(ss []Sample) []string {
		var out []string
		for _, s := range ss {
			out = append(out, fmt.Sprintf("%s %v %v", s.Family, s.Labels, s.Value))
		}
		return out
	}
	for _, tc := range []struct {
		w    walked
		t    mintlify.Counts
		want []string
	}{
		{views, mintlify.Counts{Human: 5, AI: 3, Total: 8}, []string{"mintlify_site_page_views [{traffic human}] 5", "mintlify_site_page_views [{traffic ai}] 3"}},
		{views, mintlify.Counts{Human: 5, AI: 3, Total: 10}, []string{"mintlify_site_page_views [{traffic human}] 5", "mintlify_site_page_views [{traffic ai}] 3", "mintlify_site_page_views [{traffic other}] 2"}},
		{visitors, mintlify.Counts{Human: 5, AI: 3, Total: 7}, []string{"mintlify_site_visitors [{traffic human}] 5", "mintlify_site_visitors [{traffic ai}] 3", "mintlify_site_unique_visitors [] 7"}},
	} {
		if got := show(tc.w.siteSamples(tc.t)); !slices.Equal(got, tc.want) {
			t.Errorf("%v: %q, want %q", tc.t, got, tc.want)
		}
	}
}
