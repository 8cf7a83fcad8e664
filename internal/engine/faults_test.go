package engine

import (
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// oneKindEngine is an engine of one project with the kind name alone,
// under a key whose budget no test here reaches (the simulated API keeps
// none), globals extra lines of the global section.
func oneKindEngine(t *testing.T, name, globals string) *testEngine {
	t.Helper()
	cfg := "global:\n  api_url: %s\n" + globals +
		"keys:\n  - name: acme\n    api_key_env: TEST_MINTLIFY_KEY\n    budget_per_hour: 1000\n" +
		"projects:\n  - id: proj-docs\n    name: docs\n    collectors: [" + name + "]\n"
	return newTestEngine(t, cfg, mockapi.Options{AnalyticsBudgetPerHour: -1,
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 4, Paths: 30}}}, Options{})
}

// TestEveryKindUnderFaults (#38 case 4): every kind of the table, alone
// on a project, under each of the simulator's hostile answers (server
// errors, an HTML error page, the key or its scope refused, a body that
// is not JSON, one cut short): the refresh fails with
// the fault's reason, the unit is down but its data is still shown until
// max_age, then no longer, and the first refresh after the fault brings
// it back. A kind added to the table is
// run here without a test of its own.
func TestEveryKindUnderFaults(t *testing.T) {
	for _, k := range collector.All {
		for _, tc := range []struct {
			name   string
			fault  mockapi.Fault
			reason string
		}{
			{"server error", mockapi.Fault{Status: 500}, mintlify.ReasonServerError},
			{"proxy error page", mockapi.Fault{Status: 502, Body: mockapi.HTML}, mintlify.ReasonServerError},
			{"key refused", mockapi.Fault{Status: 401}, mintlify.ReasonUnauthorized},
			{"scope refused", mockapi.Fault{Status: 403}, mintlify.ReasonForbidden},
			{"malformed body", mockapi.Fault{Body: mockapi.MalformedJSON}, mintlify.ReasonBadResponse},
			{"truncated body", mockapi.Fault{Body: mockapi.Truncated}, ""},
		} {
			t.Run(k.Name+"/"+tc.name, func(t *testing.T) {
				e := oneKindEngine(t, k.Name, "")
				e.refresh()
				if h := onlyUnit(t, e).Health(); !h.Up {
					t.Fatalf("not up before the fault: %+v", h)
				}
				e.api.Server.SetFault(tc.fault)
				e.clock.Advance(time.Hour)
				e.refresh()
				u := onlyUnit(t, e)
				h := u.Health()
				if h.Up || !u.Fresh() {
					t.Errorf("a failed refresh within max_age: up %v, fresh %v; want down with the data kept", h.Up, u.Fresh())
				}
				failed := 0.0
				for _, n := range h.FailCounts {
					failed += n
				}
				if failed == 0 || (tc.reason != "" && h.FailCounts[tc.reason] == 0) {
					t.Errorf("failures counted %v, want some of reason %q", h.FailCounts, tc.reason)
				}
				for range 4 {
					e.clock.Advance(time.Hour)
					e.refresh()
				}
				if u := onlyUnit(t, e); u.Fresh() {
					t.Error("the data is still shown after max_age of failures")
				}
				e.api.Server.ClearFaults()
				e.clock.Advance(2 * time.Hour) // past any back-off
				e.refresh()
				if h := onlyUnit(t, e).Health(); !h.Up {
					t.Errorf("no recovery on the first good refresh: %+v", h)
				}
			})
		}
	}
}

// onlyUnit is the engine's one analytics unit.
func onlyUnit(t *testing.T, e *testEngine) UnitView {
	t.Helper()
	v := e.View()
	if len(v.Units) != 1 {
		t.Fatalf("%d units, want 1", len(v.Units))
	}
	return v.Units[0]
}

// TestEveryKindHonoursRetryAfter: every kind of the table, alone on a
// project, answered 429 with a Retry-After of 10 minutes: the refresh is
// counted once as rate_limited, the unit stays up with its data (a key
// out of budget is not an upstream down), nothing is asked before the
// Retry-After has passed, the next request comes after it, and the first
// answer after the limit ends brings fresh data.
func TestEveryKindHonoursRetryAfter(t *testing.T) {
	for _, k := range collector.All {
		t.Run(k.Name, func(t *testing.T) {
			e := oneKindEngine(t, k.Name, "  min_refresh_interval: 5s\n")
			e.refresh()
			e.api.Server.SetFault(mockapi.Fault{Status: 429, RetryAfter: "600"})
			e.clock.Advance(time.Hour)
			e.refresh()
			u := onlyUnit(t, e)
			if h := u.Health(); !h.Up || !u.Fresh() || h.FailCounts[mintlify.ReasonRateLimited] != 1 {
				t.Fatalf("after a 429: up %v, fresh %v, failures %v; want up with the data and one rate_limited", h.Up, u.Fresh(), h.FailCounts)
			}
			limited := e.api.Server.CountRequests(nil)
			e.clock.Advance(5 * time.Minute)
			e.refresh()
			if n := e.api.Server.CountRequests(nil); n != limited {
				t.Fatalf("%d requests within the Retry-After", n-limited)
			}
			e.clock.Advance(6 * time.Minute)
			e.refresh()
			if n := e.api.Server.CountRequests(nil); n == limited {
				t.Fatal("no request once the Retry-After had passed")
			}
			e.api.Server.ClearFaults()
			e.clock.Advance(time.Hour)
			before := onlyUnit(t, e).Health().LastSuccess
			e.refresh()
			if h := onlyUnit(t, e).Health(); !h.Up || !h.LastSuccess.After(before) {
				t.Errorf("after the limit ended: up %v, last success %v (was %v)", h.Up, h.LastSuccess, before)
			}
		})
	}
}
