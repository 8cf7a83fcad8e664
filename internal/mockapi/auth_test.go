package mockapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAuth(t *testing.T) {
	s, _ := newTest(t, nil)
	views := "/v1/analytics/p1/views?" + week
	cases := []struct {
		name, method, path, header string
		want                       int
		analytics                  bool
	}{
		{"missing header", "GET", views, "", 401, true},
		{"not bearer", "GET", views, "Basic " + keyRW, 401, true},
		{"bearer without token", "GET", views, "Bearer ", 401, true},
		{"unknown key", "GET", views, "Bearer mint_nope", 401, true},
		{"no mint_ prefix", "GET", views, "Bearer rw_acme", 401, true},
		{"assistant key", "GET", views, "Bearer mint_dsc_acme", 401, true},
		{"index key", "GET", views, "Bearer mint_us_acme", 401, true},
		{"agent missing header", "GET", "/v2/agent/p1/job/x", "", 401, false},
		{"agent dsc key", "POST", "/v2/agent/p1/job", "Bearer mint_dsc_acme", 401, false},
		{"read-only POST", "POST", "/v2/agent/p1/job", "Bearer " + keyRO, 403, false},
		{"read-only message", "POST", "/v2/agent/p1/job/x/message", "Bearer " + keyRO, 403, false},
		{"foreign project analytics", "GET", "/v1/analytics/g1/views", "Bearer " + keyRW, 403, true},
		{"foreign project job", "POST", "/v2/agent/g1/job", "Bearer " + keyRW, 403, false},
		{"unknown project analytics", "GET", "/v1/analytics/nope/views", "Bearer " + keyRW, 404, true},
		{"unknown project job", "GET", "/v2/agent/nope/job/x", "Bearer " + keyRW, 404, false},
		{"read-only GET ok", "GET", views, "Bearer " + keyRO, 200, true},
		{"lower-case scheme ok", "GET", views, "bearer " + keyRW, 200, true},
		{"any-project key", "GET", "/v1/analytics/g1/visitors", "Bearer " + keyAnyProj, 200, true},
		{"other org own project", "GET", "/v1/analytics/g1/views", "Bearer " + keyOther, 200, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, c.path, nil)
			if c.header != "" {
				r.Header.Set("Authorization", c.header)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			wantStatus(t, w, c.want)
			if c.want == 200 {
				return
			}
			e := decode[errResp](t, w)
			if e.Error == nil || *e.Error == "" {
				t.Fatalf("no error message: %s", w.Body.String())
			}
			if !c.analytics && strings.Contains(w.Body.String(), "details") {
				t.Fatalf("agent error has analytics details: %s", w.Body.String())
			}
		})
	}
	// Rejected requests are logged without consuming anything.
	if n := s.CountRequests(func(r Request) bool { return r.Status == http.StatusUnauthorized }); n != 9 {
		t.Errorf("%d 401s logged, want 9", n)
	}
	if n := s.CountRequests(func(r Request) bool { return r.Status == 403 && r.Org == "acme" }); n != 4 {
		t.Errorf("%d acme 403s logged, want 4", n)
	}
}
