package backfill

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

// TestBackfillKeepsTheMostViewed: whatever order the API serves rows in,
// each day's --paths N are the N most viewed paths of that day's whole
// month-to-date walk, as the exporter keeps them (ties by path), also when
// the most viewed rows come on the last page; the walk reads every page.
func TestBackfillKeepsTheMostViewed(t *testing.T) {
	for _, c := range []struct {
		name  string
		order mockapi.RowOrder
		paths int // the site's
		keep  int // --paths
		pages int // per day
	}{
		{"shuffled", mockapi.Shuffled, 700, 100, 3},
		{"busiest on the last page", mockapi.QuietestFirst, 600, 50, 3},
		{"busiest first", mockapi.BusiestFirst, 300, 20, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			site := mockapi.Site{Seed: 11, Paths: c.paths, Order: c.order}
			h := newBackfillHarness(t, site, nil)
			out := filepath.Join(h.dir, "top.om")
			code, stderr := h.run(context.Background(), nil, "--from", "2026-09-01", "--to", "2026-09-03", "--paths", fmt.Sprint(c.keep), "--output", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if n := len(h.views()); n != 3*c.pages {
				t.Errorf("%d requests, want the whole walk: 3 days × %d pages", n, c.pages)
			}
			for _, r := range h.views() {
				if q, _ := url.ParseQuery(r.Query); q.Get("limit") != "250" {
					t.Errorf("a page of %s rows, want full pages of 250", q.Get("limit"))
				}
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int64]map[string]bool{} // end of day -> paths
			pathLabel := regexp.MustCompile(`path="([^"]*)"`)
			for _, l := range parseOM(t, string(b)) {
				if l.name != "mintlify_page_views_total" {
					continue
				}
				if got[l.ts] == nil {
					got[l.ts] = map[string]bool{}
				}
				got[l.ts][pathLabel.FindStringSubmatch(l.labels)[1]] = true
			}
			for _, d := range []string{"2026-09-01", "2026-09-02", "2026-09-03"} {
				end := day(d).AddDate(0, 0, 1)
				_, rows := site.Views(monthStart(day(d)), end)
				slices.SortFunc(rows, func(a, b mockapi.Row) int {
					if x := cmp.Compare(b.Total, a.Total); x != 0 {
						return x
					}
					return strings.Compare(a.Path, b.Path)
				})
				var want []string
				for _, r := range rows[:c.keep] {
					want = append(want, r.Path)
				}
				var have []string
				for p := range got[end.Unix()] {
					have = append(have, p)
				}
				slices.Sort(want)
				slices.Sort(have)
				if !slices.Equal(have, want) {
					t.Errorf("%s: %d paths written, not the %d most viewed (first written %v, first wanted %v)", d, len(have), c.keep, head(have), head(want))
				}
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 3)] }

// TestBackfillCostCountsTheWholeWalk: with the exporter's ledger telling
// the site's size (pages of its month walk), the cost printed before
// anything is spent expects every page of each day's walk, within the
// bounds of a walk whose length is not known in advance, and the run
// makes what it expected.
func TestBackfillCostCountsTheWholeWalk(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 12, Paths: 600, Order: mockapi.Shuffled}, nil)
	if err := os.MkdirAll(filepath.Dir(h.statePath()), 0o750); err != nil {
		t.Fatal(err)
	}
	tx, err := statefiles.LedgerFor(h.statePath()).Begin(t.Context(), h.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	tx.SetSites(map[string]int{backfillProject: 3})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(h.dir, "cost.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-01", "--to", "2026-09-02", "--paths", "50", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "at least 2, at most 800 requests (pageviews 2;") || !strings.Contains(stderr, "6 expected with each walk as long as the site's last") {
		t.Errorf("the cost does not count the whole walk:\n%s", stderr)
	}
	if n := len(h.views()); n != 6 {
		t.Errorf("%d requests made, the cost said 6", n)
	}
}
