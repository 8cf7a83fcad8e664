package mockapi

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestAnalyticsBudgetSharedPerOrg(t *testing.T) {
	for _, retryAfter := range []bool{false, true} {
		t.Run(fmt.Sprint("RetryAfter=", retryAfter), func(t *testing.T) {
			s, clk := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = 6; o.RetryAfter = retryAfter })
			paths := []string{"/v1/analytics/p1/views", "/v1/analytics/p2/visitors", "/v1/analytics/p1/feedback/by-page",
				"/v1/analytics/p2/searches", "/v1/analytics/p1/assistant/caller-stats", "/v1/analytics/big/views"}
			for _, p := range paths {
				wantStatus(t, do(s, "GET", p+"?"+week, keyRW, ""), 200)
				clk.Advance(time.Minute) // hits at t0, t0+1m, …, t0+5m
			}
			// Invalid requests do not consume budget, and are answered 400 even when over budget.
			wantStatus(t, do(s, "GET", "/v1/analytics/p1/views?limit=0", keyRW, ""), 400)
			// The read-only key of the same org shares the budget.
			w := do(s, "GET", "/v1/analytics/p1/views?"+week, keyRO, "")
			wantStatus(t, w, http.StatusTooManyRequests)
			if e := decode[errResp](t, w); e.Error == nil {
				t.Fatalf("429 body %s", w.Body.String())
			}
			ra := w.Header().Get("Retry-After")
			if retryAfter && ra != "3240" { // first hit at t0 frees at t0+1h; now t0+6m
				t.Errorf("Retry-After %q, want 3240", ra)
			}
			if !retryAfter && ra != "" {
				t.Errorf("Retry-After %q sent although disabled", ra)
			}
			// Another org is unaffected.
			wantStatus(t, do(s, "GET", "/v1/analytics/g1/views?"+week, keyOther, ""), 200)
			// The window slides: at t0+1h the first hit expires, exactly one slot frees.
			clk.Set(t0.Add(time.Hour - time.Second))
			wantStatus(t, do(s, "GET", "/v1/analytics/p1/views?"+week, keyRW, ""), 429)
			clk.Set(t0.Add(time.Hour))
			wantStatus(t, do(s, "GET", "/v1/analytics/p1/views?"+week, keyRW, ""), 200)
			w = do(s, "GET", "/v1/analytics/p1/views?"+week, keyRW, "")
			wantStatus(t, w, 429)
			if retryAfter && w.Header().Get("Retry-After") != "60" {
				t.Errorf("Retry-After %q, want 60", w.Header().Get("Retry-After"))
			}
			// 429s did not consume budget either: after the next expiry one slot again.
			clk.Set(t0.Add(time.Hour + time.Minute))
			wantStatus(t, do(s, "GET", "/v1/analytics/p1/views?"+week, keyRW, ""), 200)
			wantStatus(t, do(s, "GET", "/v1/analytics/p1/views?"+week, keyRW, ""), 429)
		})
	}
}

func TestDefaultBudgetIs100(t *testing.T) {
	s, _ := newTest(t, nil)
	for range 100 {
		wantStatus(t, do(s, "GET", "/v1/analytics/p1/assistant/caller-stats", keyRW, ""), 200)
	}
	wantStatus(t, do(s, "GET", "/v1/analytics/p1/assistant/caller-stats", keyRW, ""), 429)
}

func TestAgentBudgetPerProject(t *testing.T) {
	for _, retryAfter := range []bool{false, true} {
		t.Run(fmt.Sprint("RetryAfter=", retryAfter), func(t *testing.T) {
			s, clk := newTest(t, func(o *Options) { o.AgentBudgetPerHour = 3; o.RetryAfter = retryAfter })
			j := decode[jobResp](t, do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"a"}`))
			clk.Advance(10 * time.Minute)
			wantStatus(t, do(s, "POST", "/v2/agent/p1/job/"+j.ID+"/message", keyRW, `{"prompt":"b"}`), 200)
			// Bad requests and unknown jobs are free.
			wantStatus(t, do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":""}`), 400)
			wantStatus(t, do(s, "POST", "/v2/agent/p1/job/nope/message", keyRW, `{"prompt":"b"}`), 404)
			wantStatus(t, do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"c"}`), 201)
			w := do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"d"}`)
			wantStatus(t, w, 429)
			if e := decode[errResp](t, w); e.Error == nil || len(e.Details) != 0 {
				t.Fatalf("agent 429 body %s", w.Body.String())
			}
			if got := w.Header().Get("Retry-After"); retryAfter != (got == "3000") {
				t.Errorf("Retry-After %q (enabled %v), want 3000 when enabled", got, retryAfter)
			}
			wantStatus(t, do(s, "POST", "/v2/agent/p1/job/"+j.ID+"/message", keyRW, `{"prompt":"e"}`), 429)
			// GET job is never limited; another project has its own budget.
			for range 20 {
				wantStatus(t, do(s, "GET", "/v2/agent/p1/job/"+j.ID, keyRW, ""), 200)
			}
			wantStatus(t, do(s, "POST", "/v2/agent/p2/job", keyRW, `{"prompt":"x"}`), 201)
			clk.Set(t0.Add(time.Hour))
			wantStatus(t, do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"f"}`), 201)
			wantStatus(t, do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"g"}`), 429)
		})
	}
}

func TestUnlimitedBudgets(t *testing.T) {
	s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour, o.AgentBudgetPerHour = -1, -1 })
	for range 150 {
		wantStatus(t, do(s, "GET", "/v1/analytics/p1/assistant/caller-stats", keyRW, ""), 200)
		wantStatus(t, do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"x"}`), 201)
	}
}
