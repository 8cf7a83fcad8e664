package backfill

import (
	"context"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// costLine is the figures of the cost line: "N requests (…)" when the
// cost is known, else "at least N, at most M requests (…)"; then each
// collector's requests, "name N".
var costLine = regexp.MustCompile(`\): (?:(\d+) requests|at least (\d+), at most (\d+) requests) \(([^;)]*)`)

// TestBackfillCostIsWhatItSpends: for each kind with month-to-date
// counters (collector.All, so a new one is covered), the cost printed before
// anything is spent is what the run then asks the simulated API for: each
// collector's figure is exactly its requests, less the pages beyond the
// first of its walks (the views' offset pages, the conversations' cursor
// pages), which the line says it cannot know; and the run stays within
// the bounds it printed. The range starts mid-month, so the conversations'
// first day walks the days of its month before it; the site has more than
// one page of paths a month and of conversations a day.
func TestBackfillCostIsWhatItSpends(t *testing.T) {
	site := mockapi.Site{Seed: 31, Paths: 600, ConversationsPerHour: 50}
	type run struct {
		name string
		kind spec.Collector
		args []string
	}
	var runs []run
	for _, k := range collector.All {
		if !k.Windows.HasMonth() {
			continue
		}
		if k.Name == collector.PageViews {
			runs = append(runs, run{k.Name + "/site-only", k, []string{"--site-only"}}, run{k.Name + "/paths", k, []string{"--paths", "50"}})
			continue
		}
		runs = append(runs, run{k.Name, k, []string{"--site-only", "--collector." + k.Name}})
	}
	if len(runs) < 3 {
		t.Fatalf("%d runs: the table has no kind with month-to-date counters besides the views", len(runs))
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			h := newBackfillHarness(t, site, nil)
			out := filepath.Join(h.dir, "cost.om")
			args := append([]string{"--from", "2026-09-03", "--to", "2026-09-05", "--yes", "--output", out}, r.args...)
			code, stderr := h.run(context.Background(), nil, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			m := costLine.FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("no cost line with its figures:\n%s", stderr)
			}
			announced := map[string]int{}
			for _, part := range strings.Split(m[4], ", ") {
				name, n, ok := strings.Cut(part, " ")
				v, err := strconv.Atoi(n)
				if !ok || err != nil {
					t.Fatalf("collector figure %q in %q", part, m[0])
				}
				announced[name] = v
			}
			// The requests each collector made, all and first pages only.
			made, first := map[string]int{}, map[string]int{}
			total := 0
			for _, req := range h.views() {
				total++
				for _, k := range collector.All {
					if !strings.HasSuffix(req.Path, "/"+k.Endpoint) {
						continue
					}
					made[k.Name]++
					q, _ := url.ParseQuery(req.Query)
					if q.Get("offset") == "" || q.Get("offset") == "0" {
						if q.Get("cursor") == "" {
							first[k.Name]++
						}
					}
				}
			}
			names := []string{collector.PageViews}
			if r.kind.Name != collector.PageViews {
				names = append(names, r.kind.Name)
			}
			if len(announced) != len(names) {
				t.Errorf("the cost line names %v, the run uses %v", announced, names)
			}
			for _, name := range names {
				if announced[name] != first[name] {
					t.Errorf("%s: announced %d, made %d first pages (%d requests)", name, announced[name], first[name], made[name])
				}
			}
			if m[1] != "" { // known in advance: exactly what is made
				if n, _ := strconv.Atoi(m[1]); n != total {
					t.Errorf("announced %d requests, made %d:\n%s", n, total, stderr)
				}
				for _, name := range names {
					if made[name] != first[name] {
						t.Errorf("%s walked %d pages beyond the first, the line says it knows the cost: %s", name, made[name]-first[name], m[0])
					}
				}
				return
			}
			least, _ := strconv.Atoi(m[2])
			most, _ := strconv.Atoi(m[3])
			if total < least || total > most || total == least {
				t.Errorf("made %d requests, announced at least %d, at most %d (the site has pages beyond the first)", total, least, most)
			}
			if !strings.Contains(stderr, "("+strconv.Itoa(total)+"/"+strconv.Itoa(total)+" requests)") {
				t.Errorf("the progress does not end at the %d requests made:\n%s", total, stderr)
			}
		})
	}
}
