package mockapi

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// conversationsOf reads every conversation of project p1 on t0's day up
// to the server's now, through the endpoint, page by page.
func conversationsOf(t *testing.T, s *Server) []Conversation {
	t.Helper()
	var all []Conversation
	cursor := ""
	for range 100 {
		q := url.Values{"dateFrom": {"2025-03-10"}, "dateTo": {"2025-03-11"}, "limit": {"1000"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		w := do(s, http.MethodGet, "/v1/analytics/p1/assistant?"+q.Encode(), keyRW, "")
		wantStatus(t, w, http.StatusOK)
		page := decode[struct {
			Conversations []Conversation
			NextCursor    *string
			HasMore       bool
		}](t, w)
		all = append(all, page.Conversations...)
		if !page.HasMore || page.NextCursor == nil {
			return all
		}
		cursor = *page.NextCursor
	}
	t.Fatal("more than 100 pages")
	return nil
}

// unansweredShare is the share of cs whose timestamp lies in [from, to)
// that went unanswered, and how many there are.
func unansweredShare(t *testing.T, cs []Conversation, from, to time.Time) (float64, int) {
	t.Helper()
	n, u := 0, 0
	for _, c := range cs {
		at, err := time.Parse(timeLayout, c.Timestamp)
		if err != nil {
			t.Fatal(err)
		}
		if at.Before(from) || !at.Before(to) {
			continue
		}
		n++
		if c.ResolutionStatus == "unanswered" {
			u++
		}
	}
	if n == 0 {
		t.Fatalf("no conversations in [%s, %s)", from, to)
	}
	return float64(u) / float64(n), n
}

// TestGapShrinksAfterMerge: a site's gap has its rate and unanswered
// share from its hour on; a job created through the API that completes
// with a pull request has it merged MergeAfter later, and from that
// instant the conversations are unanswered at the fixed share. What could
// be read before the merge does not change. A seeded job, a failed job
// and one without a pull request close nothing.
func TestGapShrinksAfterMerge(t *testing.T) {
	s, clk := newTest(t, func(o *Options) {
		o.MergeAfter = time.Minute
		o.Projects["p1"] = Site{Seed: 1, Paths: 300, Live: true,
			Gap: &Gap{From: t0, PerHour: 600, UnansweredPercent: 40, FixedPercent: 2}}
	})
	s.SeedJob("p1", JobSeed{Prompt: "seeded", CreatedAt: t0.Add(-time.Hour)})
	for _, prompt := range []string{"this one will fail", "a noop change"} {
		wantStatus(t, do(s, http.MethodPost, "/v2/agent/p1/job", keyRW, `{"prompt":"`+prompt+`"}`), http.StatusCreated)
	}
	clk.Advance(30 * time.Minute)
	before := conversationsOf(t, s)
	share, n := unansweredShare(t, before, t0, t0.Add(30*time.Minute))
	if n < 100 || share < 0.3 || share > 0.5 {
		t.Fatalf("before any merge: %d conversations, %.2f unanswered; want the gap's rate and about 40%%", n, share)
	}
	w := do(s, http.MethodPost, "/v2/agent/p1/job", keyRW, `{"prompt":"Fill the gap"}`)
	wantStatus(t, w, http.StatusCreated)
	id := decode[JobView](t, w).ID
	merged, ok := s.MergedAt("p1", id)
	if want := t0.Add(30*time.Minute + 2*time.Minute + time.Minute); !ok || !merged.Equal(want) {
		t.Fatalf("MergedAt = %s, %v; want %s (created, active 2m, merged 1m after)", merged, ok, want)
	}
	clk.Advance(63 * time.Minute)
	if v, _ := s.Job("p1", id); v.PRLink == nil {
		t.Fatalf("job %s has no pull request: %+v", id, v)
	}
	after := conversationsOf(t, s)
	if got, _ := unansweredShare(t, after, t0, t0.Add(30*time.Minute)); got != share {
		t.Errorf("the conversations read before the merge changed: %.3f unanswered, was %.3f", got, share)
	}
	if got, _ := unansweredShare(t, after, t0.Add(30*time.Minute), merged); got < 0.3 {
		t.Errorf("between the job's creation and its merge: %.2f unanswered, want the gap's 40%%", got)
	}
	if got, n := unansweredShare(t, after, merged, clk.Now()); n < 100 || got > 0.06 {
		t.Errorf("after the merge: %d conversations, %.2f unanswered; want about 2%%", n, got)
	}
}

// TestGapUnansweredSpreadEvenly: in a gap, any run of consecutive
// conversations holds its share of unanswered ones rounded down or up
// (the sum of each one's percent over the run), before the merge, after
// it and across it, hours included: a few minutes of the demo's
// conversations (a refresh's worth, about 30) then never dip below the
// demo alert's 15% before the merge nor climb back above it after.
func TestGapUnansweredSpreadEvenly(t *testing.T) {
	from := t0.Add(-150 * time.Minute)
	s, clk := newTest(t, func(o *Options) {
		o.MergeAfter = time.Minute
		o.Projects["p1"] = Site{Seed: 1, Paths: 300, Live: true,
			Gap: &Gap{From: from, PerHour: 600, UnansweredPercent: 30, FixedPercent: 3}}
	})
	clk.Advance(17 * time.Minute)
	w := do(s, http.MethodPost, "/v2/agent/p1/job", keyRW, `{"prompt":"Fill the gap"}`)
	wantStatus(t, w, http.StatusCreated)
	merged, ok := s.MergedAt("p1", decode[JobView](t, w).ID)
	if !ok {
		t.Fatal("the job is never merged")
	}
	clk.Advance(100 * time.Minute)
	var cs []Conversation
	for _, c := range conversationsOf(t, s) {
		if c.at, _ = time.Parse(timeLayout, c.Timestamp); !c.at.Before(from.Truncate(time.Hour)) {
			cs = append(cs, c)
		}
	}
	if len(cs) < 1000 {
		t.Fatalf("%d conversations in the gap, want its 600 an hour", len(cs))
	}
	for i := range cs {
		var u, quota int
		for j := i; j < min(i+60, len(cs)); j++ {
			if cs[j].ResolutionStatus == "unanswered" {
				u++
			}
			quota += 30
			if !cs[j].at.Before(merged) {
				quota += 3 - 30
			}
			if lo, hi := quota/100, (quota+99)/100; u < lo || u > hi {
				t.Fatalf("conversations %d to %d (%s to %s; merged %s): %d unanswered, want %d or %d",
					i, j, cs[i].Timestamp, cs[j].Timestamp, merged.Format(timeLayout), u, lo, hi)
			}
		}
	}
}

// TestGapStartsOnItsPages: half a gap's conversations start on its first
// Pages pages, so every few minutes of them reach those pages (the
// demo's unanswered share by page has new conversations to divide by);
// before the gap they spread over all pages.
func TestGapStartsOnItsPages(t *testing.T) {
	from := t0.Add(-2 * time.Hour)
	s, clk := newTest(t, func(o *Options) {
		o.Projects["p1"] = Site{Seed: 1, Paths: 300, Live: true,
			Gap: &Gap{From: from, PerHour: 600, UnansweredPercent: 30, FixedPercent: 3, Pages: 5}}
	})
	clk.Advance(time.Minute)
	gapPages := map[string]bool{}
	for i := range 5 {
		gapPages[SiteURL+(Site{Seed: 1, Paths: 300}).PathName(i)] = true
	}
	var in, on, before, beforeOn int
	for _, c := range conversationsOf(t, s) {
		at, _ := time.Parse(timeLayout, c.Timestamp)
		onGap := c.PageURL != nil && gapPages[*c.PageURL]
		if at.Before(from.Truncate(time.Hour)) {
			before++
			if onGap {
				beforeOn++
			}
			continue
		}
		in++
		if onGap {
			on++
		}
	}
	if in < 500 || float64(on) < 0.35*float64(in) {
		t.Errorf("%d of %d gap conversations on its 5 pages, want about half (with a page)", on, in)
	}
	if before > 0 && float64(beforeOn) > 0.05*float64(before) {
		t.Errorf("%d of %d conversations before the gap on its pages, want about 5/300", beforeOn, before)
	}
}
