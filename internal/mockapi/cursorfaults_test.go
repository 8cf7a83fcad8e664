package mockapi

import (
	"net/url"
	"testing"
	"time"
)

// TestCursorFaults: each cursor fault of the two cursor-paged endpoints
// answers as its comment says, seen from the wire.
func TestCursorFaults(t *testing.T) {
	for _, ep := range []struct{ endpoint, path, timeKey string }{
		{EndpointConversations, "/v1/analytics/p1/assistant", "timestamp"},
		{EndpointFeedbackEntries, "/v1/analytics/big/feedback", "createdAt"},
	} {
		get := func(t *testing.T, s *Server, cursor string) listPage {
			t.Helper()
			q := url.Values{"dateFrom": {"2025-03-05"}, "dateTo": {"2025-03-09"}, "limit": {"7"}}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			w := do(s, "GET", ep.path+"?"+q.Encode(), keyRW, "")
			wantStatus(t, w, 200)
			p := decode[listPage](t, w)
			if p.HasMore == nil || !*p.HasMore || p.NextCursor == nil {
				t.Fatalf("a page without more: %s", w.Body.String())
			}
			return p
		}
		start := func(t *testing.T, f Fault) *Server {
			s, _ := newTest(t, func(o *Options) { o.AnalyticsBudgetPerHour = -1 })
			f.Endpoint = ep.endpoint
			s.SetFault(f)
			return s
		}
		t.Run(ep.endpoint+"/page served twice", func(t *testing.T) {
			s := start(t, Fault{PageServedTwice: true})
			a := *get(t, s, "").NextCursor
			if next := *get(t, s, a).NextCursor; next != a {
				t.Fatalf("page 2 points at %s, not at itself (%s)", next, a)
			}
			again := get(t, s, a)
			if *again.NextCursor == a {
				t.Fatal("page 2 served twice twice")
			}
		})
		t.Run(ep.endpoint+"/widened range", func(t *testing.T) {
			s := start(t, Fault{WidenedRange: true})
			var before, after int
			cursor := ""
			for range 3000 {
				q := url.Values{"dateFrom": {"2025-03-05"}, "dateTo": {"2025-03-09"}, "limit": {"100"}}
				if cursor != "" {
					q.Set("cursor", cursor)
				}
				p := decode[listPage](t, do(s, "GET", ep.path+"?"+q.Encode(), keyRW, ""))
				for _, r := range append(p.Conversations, p.Feedback...) {
					at, ok := r[ep.timeKey].(string)
					tm, err := time.Parse(time.RFC3339, at)
					switch {
					case !ok:
					case err != nil:
						t.Fatal(err)
					case tm.Before(time.Date(2025, 3, 5, 0, 0, 0, 0, time.UTC)):
						before++
					case !tm.Before(time.Date(2025, 3, 9, 0, 0, 0, 0, time.UTC)):
						after++
					}
				}
				if !*p.HasMore {
					break
				}
				cursor = *p.NextCursor
			}
			if before == 0 || after == 0 {
				t.Errorf("%d rows before dateFrom and %d after dateTo, want some of each", before, after)
			}
		})
		t.Run(ep.endpoint+"/repeating cursor", func(t *testing.T) {
			s := start(t, Fault{RepeatingCursor: true})
			a := *get(t, s, "").NextCursor
			for range 3 {
				if next := *get(t, s, a).NextCursor; next != a {
					t.Fatalf("cursor %s, want %s again", next, a)
				}
			}
		})
		t.Run(ep.endpoint+"/cycling cursor", func(t *testing.T) {
			s := start(t, Fault{CyclingCursor: true})
			a := *get(t, s, "").NextCursor
			b := *get(t, s, a).NextCursor
			if b == a {
				t.Fatal("page A points at itself")
			}
			for range 2 {
				if next := *get(t, s, b).NextCursor; next != a {
					t.Fatalf("page B points at %s, want A (%s)", next, a)
				}
			}
		})
		t.Run(ep.endpoint+"/refused cursors", func(t *testing.T) {
			s := start(t, Fault{RefusedCursors: 2})
			a := *get(t, s, "").NextCursor
			for i := range 2 {
				w := do(s, "GET", ep.path+"?"+url.Values{"dateFrom": {"2025-03-05"}, "dateTo": {"2025-03-09"}, "limit": {"7"}, "cursor": {a}}.Encode(), keyRW, "")
				wantStatus(t, w, 400)
				if i == 0 {
					get(t, s, "") // a first page is never refused
				}
			}
			get(t, s, a)
		})
	}
}
