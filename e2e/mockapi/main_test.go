package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNewServerRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name, key string
		projects  []string
		paths     int
		want      string
	}{
		{"no key", "", []string{"p"}, 10, "MINTLIFY_API_KEY is empty"},
		{"not an admin key", "key_abc", []string{"p"}, 10, "does not start with mint_"},
		{"no project", "mint_abc", nil, 10, "no -project"},
		{"no paths", "mint_abc", []string{"p"}, 0, "-paths 0"},
		{"too many paths", "mint_abc", []string{"p"}, maxPaths + 1, "-paths"},
		{"a path in the id", "mint_abc", []string{"a/b"}, 10, `-project "a/b"`},
	} {
		_, err := newServer(c.key, c.projects, c.paths)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if err != nil && c.key != "" && strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: the error %q shows the key", c.name, err)
		}
	}
}

// TestRequestsCountsTheAPIRequests: the count the checks read grows with
// each API request, refused ones too, and not with its own reads.
func TestRequestsCountsTheAPIRequests(t *testing.T) {
	const key = "mint_0123456789abcdef"
	srv, err := newServer(key, []string{"proj1"}, 20)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(handler(srv))
	defer ts.Close()
	count := func() string {
		t.Helper()
		resp, err := http.Get(ts.URL + requestsPath)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.TrimSpace(string(b))
	}
	if got := count(); got != "0" {
		t.Fatalf("count before any request = %q, want 0", got)
	}
	for i, auth := range []string{key, "mint_wrong"} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/analytics/proj1/views?dateFrom=2026-11-01&dateTo=2026-11-02", nil)
		req.Header.Set("Authorization", "Bearer "+auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if i == 0 && resp.StatusCode != http.StatusOK {
			t.Fatalf("the accepted key got %d", resp.StatusCode)
		}
		if i == 1 && resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a wrong key got %d, want 401", resp.StatusCode)
		}
	}
	if got := count(); got != "2" {
		t.Fatalf("count after two API requests = %q, want 2", got)
	}
}

// TestHostileRefusesBadInput: -conversations-per-hour and -fault are
// checked, and a known fault is set on the server.
func TestHostileRefusesBadInput(t *testing.T) {
	srv, err := newServer("mint_0123456789abcdef", []string{"proj1"}, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		conversations int
		fault, want   string
	}{
		{-1, "", "-conversations-per-hour -1"},
		{maxConversationsPerHour + 1, "", "-conversations-per-hour"},
		{10, "loop", `-fault "loop" is none of cycling-cursor, page-served-twice, repeating-cursor, widened-range`},
	} {
		if err := hostile(srv, []string{"proj1"}, c.conversations, c.fault); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("hostile(%d, %q) = %v, want an error containing %q", c.conversations, c.fault, err, c.want)
		}
	}
	if err := hostile(srv, []string{"proj1"}, 100, "repeating-cursor"); err != nil {
		t.Fatal(err)
	}
	if site, _ := srv.Site("proj1"); site.ConversationsPerHour != 100 || site.Paths != 20 {
		t.Errorf("site after -conversations-per-hour 100: %+v", site)
	}
}
