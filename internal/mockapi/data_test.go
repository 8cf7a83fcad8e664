package mockapi

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPathNamesStableUniqueAndVaried(t *testing.T) {
	s := Site{Seed: 42, Paths: 10_000}
	seen := map[string]bool{}
	var nested, hyphen int
	for i := range s.Paths {
		p := s.PathName(i)
		if p != s.PathName(i) {
			t.Fatalf("PathName(%d) not stable", i)
		}
		if seen[p] {
			t.Fatalf("duplicate path %q", p)
		}
		seen[p] = true
		if !strings.HasPrefix(p, "/docs/") || !utf8.ValidString(p) {
			t.Fatalf("bad path %q", p)
		}
		if strings.Count(p, "/") > 3 {
			nested++
		}
		if strings.Contains(p, "-") {
			hyphen++
		}
	}
	if nested == 0 || hyphen == 0 {
		t.Fatalf("nested=%d hyphen=%d, want some of each", nested, hyphen)
	}
	if (Site{Seed: 43}).PathName(7) == s.PathName(7) && (Site{Seed: 44}).PathName(7) == s.PathName(7) {
		t.Error("seed does not change names")
	}
}

func TestHourRange(t *testing.T) {
	d := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	h0 := d.Unix() / 3600
	cases := []struct {
		from, to    time.Time
		first, size int64
	}{
		{d, d.Add(24 * time.Hour), h0, 24},
		{d.Add(time.Nanosecond), d.Add(24 * time.Hour), h0 + 1, 23},                 // bucket started before dateFrom
		{d, d.Add(23*time.Hour + time.Nanosecond), h0, 24},                          // 23:00 bucket starts before dateTo
		{d, d.Add(23 * time.Hour), h0, 23},                                          // dateTo exclusive
		{d, d, h0, 0},                                                               // empty
		{time.Unix(-3601, 0), time.Unix(0, 0), -1, 1},                               // before the epoch
		{d.Add(90 * time.Minute), d.Add(150 * time.Minute), h0 + 2, 1},              // only the 02:00 bucket
		{d.Add(90 * time.Minute), d.Add(119 * time.Minute), h0 + 2, 0},              // no bucket starts inside
		{d.In(time.FixedZone("x", 2*3600)), d.Add(time.Hour).In(time.Local), h0, 1}, // zones do not matter
	}
	for i, c := range cases {
		f, e := HourRange(c.from, c.to)
		if f != c.first || e-f != c.size {
			t.Errorf("case %d: got [%d,%d) want first %d size %d", i, f, e, c.first, c.size)
		}
	}
}

func TestViewsMatchHourlyBuckets(t *testing.T) {
	s := Site{Seed: 9, Paths: 25}
	from := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(72 * time.Hour)
	totals, rows := s.Views(from, to)
	if len(rows) != s.Paths {
		t.Fatalf("%d rows, want %d", len(rows), s.Paths)
	}
	byPath := map[string]Row{}
	for _, r := range rows {
		byPath[r.Path] = r
	}
	var sum Counts
	for i := range s.Paths {
		var h, a int64
		for hr := from.Unix() / 3600; hr < to.Unix()/3600; hr++ {
			hh, aa := s.HourViews(i, hr)
			if hh < 0 || aa < 0 {
				t.Fatal("negative count")
			}
			h, a = h+hh, a+aa
		}
		r := byPath[s.PathName(i)]
		if r.Human != h || r.AI != a || r.Total != h+a {
			t.Fatalf("path %d: %+v, want human %d ai %d", i, r, h, a)
		}
		sum.Human += h
		sum.AI += a
	}
	sum.Total = sum.Human + sum.AI
	if totals != sum {
		t.Fatalf("totals %+v, want %+v", totals, sum)
	}
	if sum.AI >= sum.Human {
		t.Errorf("AI %d should be a smaller share than human %d", sum.AI, sum.Human)
	}
	for i := 1; i < len(rows); i++ {
		if byTotalThenPath(rows[i-1], rows[i]) > 0 {
			t.Fatal("rows not in total-desc, path-asc order")
		}
	}
}

func TestOtherTrafficAndVisitors(t *testing.T) {
	from := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 7)
	plain, _ := Site{Seed: 3, Paths: 50}.Views(from, to)
	other, rows := Site{Seed: 3, Paths: 50, OtherTraffic: true}.Views(from, to)
	if plain.Total != plain.Human+plain.AI {
		t.Errorf("without OtherTraffic total %d != %d", plain.Total, plain.Human+plain.AI)
	}
	extra := other.Total - other.Human - other.AI
	if extra <= 0 || extra > 4*7*24 {
		t.Errorf("OtherTraffic extra = %d", extra)
	}
	for _, r := range rows {
		if r.Total != r.Human+r.AI {
			t.Fatalf("row %+v: total != human+ai", r)
		}
	}
	vt, vrows := Site{Seed: 3, Paths: 50}.Visitors(from, to)
	if vt.Total > vt.Human+vt.AI || vt.Total < max(vt.Human, vt.AI) {
		t.Errorf("visitor totals %+v not de-duplicated", vt)
	}
	for _, r := range vrows {
		if r.Total > r.Human+r.AI || r.Total < max(r.Human, r.AI) {
			t.Fatalf("visitor row %+v not de-duplicated", r)
		}
	}
}

// TestViewsFastForTenThousandPaths bounds the CPU time the simulated data
// costs, not the wall time: other processes on the machine stretch the
// latter, never the former. The bounds are ten times what the computation
// takes, to catch an accidental quadratic step, not to benchmark.
func TestViewsFastForTenThousandPaths(t *testing.T) {
	from := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	s := Site{Seed: 777, Paths: 10_000}
	dataCache.reset() // measure the computation, not the caches
	dayCache.reset()
	start := cpuTime()
	_, rows := s.Views(from, from.AddDate(0, 0, 7))
	used := cpuTime() - start
	t.Logf("CPU time: %v uncached", used)
	if len(rows) != 10_000 {
		t.Fatalf("%d rows", len(rows))
	}
	limit := 500 * time.Millisecond
	if raceEnabled {
		limit *= 5 // the race detector instruments every memory access
	}
	if used > limit {
		t.Errorf("10 000 paths x 7 days took %v of CPU time (limit %v)", used, limit)
	}
	if cached := dataCache.len(); cached != 1 {
		t.Fatalf("%d ranges cached after one call, want 1", cached)
	}
	start = cpuTime()
	_, again := s.Views(from, from.AddDate(0, 0, 7))
	used = cpuTime() - start
	t.Logf("CPU time: %v cached", used)
	if limit := limit / 5; used > limit {
		t.Errorf("cached call took %v of CPU time (limit %v)", used, limit)
	}
	if len(again) != len(rows) || again[0] != rows[0] {
		t.Error("the cached call answered differently")
	}
}

func TestSearchesAndFeedbackDerived(t *testing.T) {
	from := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	s := Site{Seed: 1, Paths: 300}
	rows, total := s.Searches(from, from.AddDate(0, 0, 7))
	var sum int64
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Hits <= 0 || r.CTR < 0 || r.CTR > 1 || seen[r.SearchQuery] {
			t.Fatalf("bad row %+v", r)
		}
		seen[r.SearchQuery] = true
		if _, err := time.Parse(time.RFC3339, r.LastSearchedAt); err != nil {
			t.Fatal(err)
		}
		sum += r.Hits
	}
	if sum != total || len(rows) == 0 {
		t.Fatalf("sum %d total %d rows %d", sum, total, len(rows))
	}
	for _, f := range s.Feedback(from, from.AddDate(0, 0, 7)) {
		if f.Total != f.ThumbsUp+f.ThumbsDown+f.Code || f.Total == 0 {
			t.Fatalf("bad feedback row %+v", f)
		}
	}
	cs := s.CallerStats(from, from.AddDate(0, 0, 7))
	if cs.Total != cs.Web+cs.API+cs.Other || cs.Total == 0 {
		t.Fatalf("caller stats %+v", cs)
	}
}

// TestRealClock: the simulated API's default clock is the wall clock.
func TestRealClock(t *testing.T) {
	if d := time.Since(RealClock{}.Now()); d < 0 || d > time.Minute {
		t.Fatal("RealClock")
	}
}

// BenchmarkViewsPage is one 250-row page of a 10 000-path week as a client
// sees it (data cached after the first call).
func BenchmarkViewsPage(b *testing.B) {
	s := New(Options{Keys: []KeySpec{{Key: "mint_b", Org: "o"}}, Projects: map[string]Site{"p": {Seed: 1, Paths: 10_000}},
		AnalyticsBudgetPerHour: -1})
	for b.Loop() {
		w := do(s, "GET", "/v1/analytics/p/views?dateFrom=2025-03-01&dateTo=2025-03-08&limit=250&offset=5000", "mint_b", "")
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// TestRowOrder: every order serves the same rows; BusiestFirst by total
// descending, QuietestFirst ascending (the busiest on the last page),
// Shuffled neither, and the same way on every call.
func TestRowOrder(t *testing.T) {
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 3)
	served := map[RowOrder][]Row{}
	for _, o := range []RowOrder{BusiestFirst, QuietestFirst, Shuffled} {
		_, rows := Site{Seed: 5, Paths: 400, Order: o}.Views(from, to)
		_, again := Site{Seed: 5, Paths: 400, Order: o}.Views(from, to)
		if !slices.Equal(rows, again) {
			t.Errorf("order %d: two calls served different orders", o)
		}
		served[o] = rows
	}
	sorted := func(rows []Row) []Row {
		s := slices.Clone(rows)
		slices.SortFunc(s, byTotalThenPath)
		return s
	}
	busiest := served[BusiestFirst]
	if !slices.Equal(busiest, sorted(busiest)) {
		t.Error("BusiestFirst is not busiest first")
	}
	for _, o := range []RowOrder{QuietestFirst, Shuffled} {
		if !slices.Equal(sorted(served[o]), busiest) {
			t.Errorf("order %d serves other rows", o)
		}
	}
	if q := served[QuietestFirst]; q[len(q)-1] != busiest[0] || q[0] != busiest[len(busiest)-1] {
		t.Error("QuietestFirst does not end with the busiest row")
	}
	if s := served[Shuffled]; slices.Equal(s, busiest) || slices.Equal(s, served[QuietestFirst]) {
		t.Error("Shuffled is one of the sorted orders")
	}
}

// TestDaySumsAreTheHourSums: a range's views, built from per-day sums for
// its whole days, are the sums of its hour buckets one by one, for ranges
// shorter and longer than a day, on and off day boundaries, live or not.
func TestDaySumsAreTheHourSums(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, live := range []bool{false, true} {
		for _, r := range []struct{ from, to time.Time }{
			{day, day.Add(24 * time.Hour)},
			{day, day.AddDate(0, 0, 20).Add(13*time.Hour + 7*time.Minute)},
			{day.Add(5*time.Hour + 30*time.Minute), day.AddDate(0, 0, 3).Add(time.Hour)},
			{day.Add(23 * time.Hour), day.Add(26 * time.Hour)},
			{day.Add(-30 * time.Hour), day.Add(47*time.Hour + 59*time.Minute)},
		} {
			s := Site{Seed: 9, Paths: 40, Live: live}
			sp := s.spanOf(r.from, r.to)
			_, rows := s.Views(r.from, r.to)
			got := map[string]Row{}
			for _, row := range rows {
				got[row.Path] = row
			}
			for i := range s.Paths {
				base := hash3(uint64(s.Seed), uint64(i), tagHour)
				p := s.popularity(i)
				var human, ai int64
				for h := sp.first; h < sp.end; h++ {
					x := mix64(base ^ uint64(h)*0x9e3779b97f4a7c15)
					human += sp.part(int64((x&0xffffffff)%(p/8+1)), h, x)
					ai += sp.part(int64((x>>32)%(p/40+1)), h, ^x)
				}
				if row := got[s.PathName(i)]; row.Human != human || row.AI != ai {
					t.Fatalf("live %v, %s to %s, path %d: %d human %d AI, want the hours' %d and %d",
						live, r.from, r.to, i, row.Human, row.AI, human, ai)
				}
			}
		}
	}
}
