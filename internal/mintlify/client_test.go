package mintlify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

const testKey = "mint_testkey0123456789"

func newTestClient(t testing.TB, h http.Handler, mod ...func(*Options)) (*Client, *bytes.Buffer) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var logs bytes.Buffer
	o := Options{
		BaseURL:   srv.URL,
		Key:       secret.New(testKey),
		RetryBase: time.Millisecond,
		RetryMax:  2 * time.Millisecond,
		// Far above any answer time of a local handler on a loaded
		// machine: tests about timeouts set their own.
		RequestTimeout: time.Minute,
		Logger:         slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, m := range mod {
		m(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, &logs
}

var day = DateRange{From: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}

func TestValidateKey(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"", "empty"},
		{"mint_abc\n", "whitespace"},
		{"mint_dsc_abc", "assistant key"},
		{"mint_us_abc", "index key"},
		{"sk_live_abc", "not an admin key"},
		{"mint_", "not an admin key"},
		{"mint_abc", ""},
	} {
		err := ValidateKey(tc.key)
		if tc.want == "" {
			if err != nil {
				t.Errorf("ValidateKey(%q) = %v, want nil", tc.key, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateKey(%q) = %v, want error containing %q", tc.key, err, tc.want)
		}
		if err != nil && len(tc.key) > len("mint_") && strings.Contains(err.Error(), strings.TrimSpace(tc.key)) {
			t.Errorf("error %q quotes the key", err)
		}
	}
	if _, err := New(Options{Key: secret.New("mint_dsc_x")}); err == nil {
		t.Fatal("New accepted an assistant key")
	}
	if _, err := New(Options{Key: secret.New(testKey), BaseURL: "ftp://x"}); err == nil {
		t.Fatal("New accepted a non-http URL")
	}
}

func TestRequestShape(t *testing.T) {
	var got *http.Request
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		fmt.Fprint(w, `{"totals":{"human":1,"ai":2,"total":3},"views":[{"path":"/a","human":1,"ai":2,"total":3}],"hasMore":false}`)
	}), func(o *Options) { o.UserAgent = "mintlify_exporter/1.2.3" })
	p, err := c.Rows(context.Background(), Views, "proj 1", day, 250, 500)
	if err != nil {
		t.Fatal(err)
	}
	if p.Totals != (Counts{1, 2, 3}) || len(p.Rows) != 1 || p.Rows[0].Path != "/a" || p.HasMore {
		t.Fatalf("decoded %+v", p)
	}
	if got.URL.EscapedPath() != "/v1/analytics/proj%201/views" {
		t.Errorf("path %q", got.URL.Path)
	}
	q := got.URL.Query()
	for k, v := range map[string]string{"dateFrom": "2026-11-01T00:00:00Z", "dateTo": "2026-11-02T00:00:00Z", "limit": "250", "offset": "500"} {
		if q.Get(k) != v {
			t.Errorf("query %s = %q, want %q", k, q.Get(k), v)
		}
	}
	if got.Header.Get("Authorization") != "Bearer "+testKey {
		t.Error("no bearer key sent")
	}
	if got.Header.Get("User-Agent") != "mintlify_exporter/1.2.3" {
		t.Errorf("user agent %q", got.Header.Get("User-Agent"))
	}
}

func TestArgumentChecks(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	ctx := context.Background()
	checks := []error{
		func() error { _, err := c.Rows(ctx, Views, "p", day, 0, 0); return err }(),
		func() error { _, err := c.Rows(ctx, Views, "p", day, 251, 0); return err }(),
		func() error { _, err := c.Rows(ctx, Views, "p", day, 10, -1); return err }(),
		func() error { _, err := c.Rows(ctx, Views, "p", DateRange{}, 10, 0); return err }(),
		func() error {
			_, err := c.Rows(ctx, Views, "p", DateRange{From: day.To, To: day.From}, 10, 0)
			return err
		}(),
		func() error { _, err := c.SendMessage(ctx, "p", "j", ""); return err }(),
		func() error { _, err := c.CreateJob(ctx, "p", "  "); return err }(),
	}
	for i, err := range checks {
		if err == nil {
			t.Errorf("check %d: no error", i)
		}
	}
	if calls.Load() != 0 {
		t.Fatalf("%d requests sent for invalid arguments", calls.Load())
	}
}

func TestErrorClasses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		header map[string]string
		check  func(error) bool
		want   string
	}{
		{"401", 401, `{"error":"Invalid API key"}`, nil, IsUnauthorized, "Invalid API key"},
		{"403", 403, `{"error":"Insufficient scope"}`, nil, IsForbidden, "Insufficient scope"},
		{"404", 404, `{"error":"Job not found"}`, nil, IsNotFound, "Job not found"},
		{"400 details", 400, `{"error":"Invalid query","details":[{"message":"limit must be <= 250"}]}`, nil, IsBadRequest, "limit must be <= 250"},
		{"500", 500, `{"error":"boom"}`, nil, IsServerError, "boom"},
		{"502 html", 502, `<html><body>Bad gateway</body></html>`, nil, IsServerError, "non-JSON body"},
		{"429 with retry-after", 429, `{"error":"Rate limit exceeded"}`, map[string]string{"Retry-After": "42"}, func(err error) bool {
			lim, ra, ok := IsRateLimited(err)
			return lim && ok && ra == 42*time.Second
		}, "retry after 42s"},
		{"429 without retry-after", 429, `{"error":"Rate limit exceeded"}`, nil, func(err error) bool {
			lim, _, ok := IsRateLimited(err)
			return lim && !ok
		}, "Rate limit exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, logs := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}))
			_, err := c.GetJob(context.Background(), "p", "j")
			if err == nil || !tc.check(err) {
				t.Fatalf("err = %v, predicate false", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %q lacks %q", err, tc.want)
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.StatusCode != tc.status {
				t.Errorf("not an *APIError with status %d: %#v", tc.status, err)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(logs.String(), testKey) {
				t.Error("key leaked into error or log")
			}
		})
	}
}

func TestUnusableResponses(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not json", `hello`, "invalid JSON"},
		{"truncated", `{"totals":{"human":1,"ai":2,"total":3},"views":[{"pa`, "truncated"},
		{"empty", ``, "empty body"},
		{"missing totals", `{"views":[],"hasMore":false}`, `"totals"`},
		{"missing views", `{"totals":{"human":1,"ai":2,"total":3},"hasMore":false}`, `"views"`},
		{"missing hasMore", `{"totals":{"human":1,"ai":2,"total":3},"views":[]}`, `"hasMore"`},
		{"missing total", `{"totals":{"human":1,"ai":2},"views":[],"hasMore":false}`, `"totals.total"`},
		{"row without path", `{"totals":{"human":1,"ai":2,"total":3},"views":[{"human":1,"ai":0,"total":1}],"hasMore":false}`, `views[0].path`},
		{"string count", `{"totals":{"human":"1","ai":2,"total":3},"views":[],"hasMore":false}`, "invalid JSON"},
		{"oversize", `{"totals":{"human":1,"ai":2,"total":3},"views":[` + strings.Repeat(`{"path":"/x","human":1,"ai":1,"total":2},`, 2000) + `{"path":"/y","human":1,"ai":1,"total":2}],"hasMore":false}`, "body exceeds 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				fmt.Fprint(w, tc.body)
			}), func(o *Options) { o.MaxBodyBytes = 1024 })
			p, err := c.Rows(context.Background(), Views, "p", day, 250, 0)
			if err == nil || p != nil {
				t.Fatalf("got page %+v, err %v; want an error", p, err)
			}
			var re *ResponseError
			if !errors.As(err, &re) {
				t.Fatalf("not a *ResponseError: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %q lacks %q", err, tc.want)
			}
			if calls.Load() != 1 {
				t.Errorf("%d calls, want 1 (an unusable 200 is not retried)", calls.Load())
			}
		})
	}
	t.Run("missing job id", func(t *testing.T) {
		c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"status":"active"}`)
		}))
		if _, err := c.GetJob(context.Background(), "p", "j"); err == nil || !strings.Contains(err.Error(), `"id"`) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("bad job status", func(t *testing.T) {
		c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"id":"j","status":"exploded"}`)
		}))
		if _, err := c.GetJob(context.Background(), "p", "j"); err == nil || !strings.Contains(err.Error(), "exploded") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestRetries(t *testing.T) {
	t.Run("5xx then success", func(t *testing.T) {
		var calls atomic.Int32
		var observed []int
		var mu sync.Mutex
		c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) < 3 {
				w.WriteHeader(503)
				return
			}
			fmt.Fprint(w, `{"id":"j","status":"active"}`)
		}), func(o *Options) {
			o.Observer = func(ep string, code int, _ time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				observed = append(observed, code)
			}
		})
		if _, err := c.GetJob(context.Background(), "p", "j"); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != 3 || fmt.Sprint(observed) != "[503 503 200]" {
			t.Fatalf("calls %d, observed %v", calls.Load(), observed)
		}
	})
	t.Run("5xx gives up after MaxRetries", func(t *testing.T) {
		var calls atomic.Int32
		c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(500)
		}), func(o *Options) { o.MaxRetries = 2 })
		if _, err := c.GetJob(context.Background(), "p", "j"); !IsServerError(err) {
			t.Fatalf("err = %v", err)
		}
		if calls.Load() != 3 {
			t.Fatalf("calls %d, want 3", calls.Load())
		}
	})
	for _, status := range []int{429, 400, 401, 403, 404} {
		t.Run(fmt.Sprintf("%d not retried", status), func(t *testing.T) {
			var calls atomic.Int32
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(status)
			}))
			_, _ = c.Rows(context.Background(), Views, "p", day, 10, 0)
			if calls.Load() != 1 {
				t.Fatalf("calls %d, want 1", calls.Load())
			}
		})
	}
	t.Run("POST not retried on 5xx", func(t *testing.T) {
		var calls atomic.Int32
		c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(500)
		}))
		if _, err := c.CreateJob(context.Background(), "p", "do it"); !IsServerError(err) {
			t.Fatalf("err = %v", err)
		}
		if calls.Load() != 1 {
			t.Fatalf("calls %d: a create must not be repeated after the server may have acted", calls.Load())
		}
	})
	t.Run("timeout retried, bounded by context", func(t *testing.T) {
		// Every attempt hangs until its 20 ms request timeout; the caller's
		// context ends once the third attempt has arrived, an event rather
		// than a wall-clock budget, so the verdict is the same on a slow
		// machine.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var calls atomic.Int32
		c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 3 {
				cancel()
			}
			<-r.Context().Done()
		}), func(o *Options) { o.RequestTimeout = 20 * time.Millisecond; o.MaxRetries = 100 })
		_, err := c.GetJob(ctx, "p", "j")
		if err == nil {
			t.Fatal("no error")
		}
		if !errors.Is(err, context.Canceled) && ctx.Err() == nil {
			t.Fatalf("err = %v; the caller's context should have ended the retries", err)
		}
		// Attempts 1 and 2 timed out and were retried; the third ended the
		// context, after which no new attempt may start (one already on its
		// way may still arrive).
		if n := calls.Load(); n < 3 || n > 4 {
			t.Fatalf("calls %d: want 3 (retries until the context ended), at most one more in flight", n)
		}
	})
	t.Run("connection refused retried", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		var attempts atomic.Int32
		c, err := New(Options{BaseURL: url, Key: secret.New(testKey), RetryBase: time.Millisecond, MaxRetries: 2,
			Observer: func(_ string, code int, _ time.Duration) {
				if code == 0 {
					attempts.Add(1)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateJob(context.Background(), "p", "x"); err == nil {
			t.Fatal("no error")
		} else if strings.Contains(err.Error(), testKey) {
			t.Fatal("key in error")
		}
		if attempts.Load() != 3 {
			t.Fatalf("attempts %d, want 3 (dial errors are safe to retry, even for POST)", attempts.Load())
		}
	})
}

func TestJobDecoding(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/message"):
			var b map[string]string
			_ = json.NewDecoder(r.Body).Decode(&b)
			if b["prompt"] != "more" {
				w.WriteHeader(400)
				return
			}
			fmt.Fprint(w, `{"id":"j1","status":"completed","source":{"repository":"https://github.com/acme/docs","ref":"main"},"model":"m1","prLink":"https://github.com/acme/docs/pull/7","createdAt":"2026-11-01T10:00:00Z","archivedAt":"2026-11-02T10:00:00.5Z"}`)
		case r.Method == "POST":
			w.WriteHeader(201)
			fmt.Fprint(w, `{"id":"j1","status":"active","source":{"repository":"https://github.com/acme/docs","ref":null},"model":"m1","prLink":null,"createdAt":"2026-11-01T10:00:00Z","archivedAt":null}`)
		default:
			w.WriteHeader(404)
			fmt.Fprint(w, `{"error":"Job not found"}`)
		}
	}))
	ctx := context.Background()
	j, err := c.CreateJob(ctx, "p", "write docs")
	if err != nil {
		t.Fatal(err)
	}
	if j.ID != "j1" || j.Status != JobActive || j.Ref != nil || j.PRLink != nil || j.ArchivedAt != nil ||
		j.Repository != "https://github.com/acme/docs" || !j.CreatedAt.Equal(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("created job %+v", j)
	}
	j, err = c.SendMessage(ctx, "p", "j1", "more")
	if err != nil {
		t.Fatal(err)
	}
	if *j.Ref != "main" || *j.PRLink != "https://github.com/acme/docs/pull/7" || j.ArchivedAt.Nanosecond() != 5e8 || !j.Status.Terminal() {
		t.Fatalf("message job %+v", j)
	}
	if _, err := c.GetJob(ctx, "p", "nope"); !IsNotFound(err) {
		t.Fatalf("err = %v", err)
	}
}

func TestKeyNeverPrinted(t *testing.T) {
	c, logs := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	_, err := c.GetJob(context.Background(), "p", "j")
	outs := []string{fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%+v", *c), fmt.Sprintf("%s", c), logs.String(), fmt.Sprintf("%+v", err)}
	for _, o := range outs {
		if strings.Contains(o, testKey) || strings.Contains(o, "testkey") {
			t.Errorf("key printed in %q", o)
		}
	}
	if !strings.Contains(logs.String(), "status=500") {
		t.Error("debug log has no request line, so the check above proved nothing")
	}
}

// A day range is sent as YYYY-MM-DD; bounds that are not midnight UTC are
// refused rather than silently cut.
func TestDateRangeDays(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	q, err := DateRange{From: from, To: to, Days: true}.query()
	if err != nil || q.Get("dateFrom") != "2026-11-01" || q.Get("dateTo") != "2026-11-22" {
		t.Fatalf("day range query = %v, %v", q, err)
	}
	q, err = DateRange{From: from, To: to}.query()
	if err != nil || q.Get("dateFrom") != "2026-11-01T00:00:00Z" || q.Get("dateTo") != "2026-11-22T00:00:00Z" {
		t.Fatalf("RFC 3339 range query = %v, %v", q, err)
	}
	if _, err := (DateRange{From: from, To: to.Add(time.Minute), Days: true}).query(); err == nil {
		t.Fatal("a day range ending at 00:01 was accepted")
	}
}

// TestDocumentedErrorBody: only the API's own JSON error shape, as JSON,
// with nothing else in it, marks an error as the API's own answer; a
// gateway's page, other fields or trailing data do not.
func TestDocumentedErrorBody(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		want                    bool
	}{
		{"admin", "application/json", `{"error":"Bad gateway"}`, true},
		{"analytics", "application/json; charset=utf-8", `{"error":"x","details":[{"message":"y"}]}`, true},
		{"html", "text/html", `<html><body>502 Bad Gateway</body></html>`, false},
		{"json as text", "text/plain", `{"error":"Bad gateway"}`, false},
		{"other fields", "application/json", `{"error":"x","message":"upstream timed out"}`, false},
		{"not a string", "application/json", `{"error":{"code":502}}`, false},
		{"trailing data", "application/json", `{"error":"x"}{"error":"y"}`, false},
		{"empty error", "application/json", `{"error":""}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(http.StatusBadGateway)
				fmt.Fprint(w, tc.body)
			}))
			_, err := c.GetJob(context.Background(), "p", "j")
			var ae *APIError
			if !errors.As(err, &ae) || ae.Documented != tc.want {
				t.Errorf("err %#v: Documented want %v", err, tc.want)
			}
		})
	}
}
