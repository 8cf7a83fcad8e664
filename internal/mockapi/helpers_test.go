package mockapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
)

// t0 is a fixed "now" for every test: a Monday noon, UTC.
var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

const (
	keyRW      = "mint_rw_acme"
	keyRO      = "mint_ro_acme"
	keyOther   = "mint_rw_globex"
	keyAnyProj = "mint_any_initech"
)

func testOptions(clock Clock) Options {
	return Options{
		Clock: clock,
		Keys: []KeySpec{
			{Key: keyRW, Org: "acme", Scope: ReadWrite, ProjectIDs: []string{"p1", "p2", "empty", "big"}},
			{Key: keyRO, Org: "acme", Scope: ReadOnly, ProjectIDs: []string{"p1", "p2", "empty", "big"}},
			{Key: keyOther, Org: "globex", Scope: ReadWrite, ProjectIDs: []string{"g1"}},
			{Key: keyAnyProj, Org: "initech", Scope: ReadWrite},
			// Configured on purpose: these prefixes must be refused anyway.
			{Key: "mint_dsc_acme", Org: "acme", Scope: ReadWrite},
			{Key: "mint_us_acme", Org: "acme", Scope: ReadWrite},
		},
		Projects: map[string]Site{
			"p1":    {Seed: 1, Paths: 300},
			"p2":    {Seed: 2, Paths: 40, OtherTraffic: true},
			"empty": {Seed: 3, Paths: 0},
			"big":   {Seed: 4, Paths: 10_000},
			"g1":    {Seed: 5, Paths: 20},
		},
	}
}

// newTest builds a server on a manual clock; mutate may adjust options.
func newTest(t *testing.T, mutate func(*Options)) (*Server, *manualclock.Clock) {
	t.Helper()
	clk := manualclock.New(t0)
	o := testOptions(clk)
	if mutate != nil {
		mutate(&o)
	}
	return New(o), clk
}

// do sends one request straight to the handler.
func do(s http.Handler, method, target, key, body string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// decode unmarshals a response body into v, failing the test on error.
func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %q: %v", w.Body.String(), err)
	}
	return v
}

func wantStatus(t *testing.T, w *httptest.ResponseRecorder, code int) {
	t.Helper()
	if w.Code != code {
		t.Fatalf("status %d, want %d; body %s", w.Code, code, w.Body.String())
	}
}

// Decoding types owned by the tests, so the tests check the wire format
// rather than round-tripping the server's own structs.
type pageResp struct {
	Totals   Counts `json:"totals"`
	Views    []Row  `json:"views"`
	Visitors []Row  `json:"visitors"`
	HasMore  *bool  `json:"hasMore"`
}

type errResp struct {
	Error   *string `json:"error"`
	Details []struct {
		Message string `json:"message"`
	} `json:"details"`
}

type jobResp struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Source struct {
		Repository string  `json:"repository"`
		Ref        *string `json:"ref"`
	} `json:"source"`
	Model      string  `json:"model"`
	PRLink     *string `json:"prLink"`
	CreatedAt  string  `json:"createdAt"`
	ArchivedAt *string `json:"archivedAt"`
}

const week = "dateFrom=2025-03-01&dateTo=2025-03-08"
