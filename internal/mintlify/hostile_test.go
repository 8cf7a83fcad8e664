package mintlify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// A 3xx to another port of the same host is not followed, whichever
// http.Client the caller passes: the other port sees no request (Go keeps
// the Authorization header for a same-host redirect), and the answer is an
// unusable response.
func TestRedirectNotFollowed(t *testing.T) {
	var other atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Add(1)
		fmt.Fprint(w, `{"id":"j","status":"active"}`)
	}))
	t.Cleanup(elsewhere.Close)
	for name, hc := range map[string]*http.Client{
		"default client":   nil,
		"NewHTTPClient":    NewHTTPClient(),
		"caller's client":  {Transport: http.DefaultTransport.(*http.Transport).Clone()},
		"zero http.Client": {},
	} {
		for _, code := range []int{301, 302, 303, 307, 308} {
			t.Run(name+"/"+strconv.Itoa(code), func(t *testing.T) {
				c, logs := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, elsewhere.URL+r.URL.Path, code)
				}), func(o *Options) { o.HTTPClient = hc })
				_, err := c.GetJob(context.Background(), "p", "j")
				var re *ResponseError
				if !errors.As(err, &re) || re.StatusCode != code || !strings.Contains(err.Error(), "redirect not followed") {
					t.Fatalf("err = %v, want a *ResponseError for the %d", err, code)
				}
				if !strings.Contains(err.Error(), elsewhere.URL) {
					t.Errorf("err %q does not say where the redirect pointed", err)
				}
				if n := other.Load(); n != 0 {
					t.Fatalf("the redirect target received %d requests", n)
				}
				if strings.Contains(logs.String(), testKey) {
					t.Fatal("key in the log")
				}
			})
		}
	}
	if hc := NewHTTPClient(); hc.Transport.(*http.Transport).ResponseHeaderTimeout != 0 {
		t.Error("the transport caps the wait for headers below request_timeout")
	}
}

// An upstream that echoes the request's Authorization header in an error
// body must not put the key into the error or the log.
func TestEchoedKeyScrubbed(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"json", `{"error":"invalid credentials: %s","details":[{"message":"got %s"},{"message":"key mint_someoneelse"}]}`},
		{"json status", `{"id":"j","status":"%s"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, logs := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				auth := r.Header.Get("Authorization")
				if tc.name == "json" {
					w.WriteHeader(401)
				}
				fmt.Fprint(w, strings.ReplaceAll(tc.body, "%s", auth))
			}))
			_, err := c.GetJob(context.Background(), "p", "j")
			if err == nil {
				t.Fatal("no error")
			}
			for _, out := range []string{err.Error(), logs.String()} {
				if strings.Contains(out, testKey) || strings.Contains(out, "mint_someoneelse") || strings.Contains(out, strings.TrimPrefix(testKey, "mint_")) {
					t.Fatalf("key in %q", out)
				}
			}
			if !strings.Contains(err.Error(), redacted) {
				t.Errorf("err %q: no sign of the redaction", err)
			}
		})
	}
}

func TestUpstreamTextCapped(t *testing.T) {
	long := strings.Repeat("A", 100_000)
	details := strings.Repeat(`{"message":"d"},`, 1000) + `{"message":"d"}`
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":"%s\u0000\n\u001b[31m","details":[%s]}`, long, details)
	}))
	_, err := c.GetJob(context.Background(), "p", "j")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if len(msg) > 2*MaxUpstreamText+(maxDetails+1)*MaxUpstreamText {
		t.Fatalf("error is %d bytes long", len(msg))
	}
	if strings.ContainsFunc(msg, unicode.IsControl) {
		t.Fatalf("control characters in %q", msg)
	}
	if !strings.Contains(msg, "and 996 more") {
		t.Errorf("details not capped: %q", msg[len(msg)-100:])
	}
}

// Pages with more rows than asked for, and counts that cannot be real,
// are unusable responses, not data.
func TestPageAndCountBounds(t *testing.T) {
	rows := func(n int, count string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"path":"/p%d","human":%s,"ai":0,"total":%s}`, i, count, count)
		}
		return b.String()
	}
	const totals = `"totals":{"human":1,"ai":1,"total":2}`
	for _, tc := range []struct {
		name, body, want string
		ok               bool
	}{
		{"limit rows", `{` + totals + `,"views":[` + rows(10, "1") + `],"hasMore":true}`, "", true},
		{"limit+1 rows", `{` + totals + `,"views":[` + rows(11, "1") + `],"hasMore":true}`, "more views rows than the page limit of 10", false},
		{"2^53", `{` + totals + `,"views":[` + rows(1, "9007199254740992") + `],"hasMore":false}`, "", true},
		{"above 2^53", `{` + totals + `,"views":[` + rows(1, "9007199254740994") + `],"hasMore":false}`, "above 2^53", false},
		{"1e300 total", `{"totals":{"human":1,"ai":1,"total":1e300},"views":[],"hasMore":false}`, "above 2^53", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tc.body) }))
			_, err := c.Rows(context.Background(), Views, "p", day, 10, 0)
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var re *ResponseError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a *ResponseError with %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		call func(*Client) error
		body string
	}{
		{"feedback rows", func(c *Client) error { _, err := c.FeedbackByPage(context.Background(), "p", day, 1); return err },
			`{"feedback":[{"path":"/a","thumbsUp":1,"thumbsDown":0,"code":0,"total":1},{"path":"/b","thumbsUp":1,"thumbsDown":0,"code":0,"total":1}],"hasMore":false}`},
		{"feedback count", func(c *Client) error { _, err := c.FeedbackByPage(context.Background(), "p", day, 1); return err },
			`{"feedback":[{"path":"/a","thumbsUp":1e300,"thumbsDown":0,"code":0,"total":1}],"hasMore":false}`},
		{"searches rows", func(c *Client) error { _, err := c.Searches(context.Background(), "p", day, 1, ""); return err },
			`{"searches":[{"searchQuery":"a","hits":1,"ctr":0},{"searchQuery":"b","hits":1,"ctr":0}],"totalSearches":2,"nextCursor":null}`},
		{"searches total", func(c *Client) error { _, err := c.Searches(context.Background(), "p", day, 1, ""); return err },
			`{"searches":[],"totalSearches":1e20,"nextCursor":null}`},
		{"caller stats", func(c *Client) error { _, err := c.AssistantCallerStats(context.Background(), "p", day); return err },
			`{"web":1,"api":1,"other":1,"total":1e300}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tc.body) }))
			var re *ResponseError
			if err := tc.call(c); !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *ResponseError", err)
			}
		})
	}
}

// A body cut short (fewer bytes than Content-Length) is an unusable
// response, after the retries an idempotent call gets.
func TestTruncatedBodyIsBadResponse(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Length", "1000")
		fmt.Fprint(w, `{"id":"j","sta`)
	}))
	_, err := c.GetJob(context.Background(), "p", "j")
	var re *ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v (%T), want a *ResponseError", err, err)
	}
	if calls.Load() != int32(DefaultMaxRetries+1) {
		t.Errorf("%d calls, want %d (retried like a transport error)", calls.Load(), DefaultMaxRetries+1)
	}
}

// Ids that would be dot segments or empty never reach the network.
func TestDotSegmentsRefused(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	ctx := context.Background()
	for _, err := range []error{
		func() error { _, err := c.GetJob(ctx, "p", ".."); return err }(),
		func() error { _, err := c.GetJob(ctx, "..", "j"); return err }(),
		func() error { _, err := c.GetJob(ctx, "p", "."); return err }(),
		func() error { _, err := c.CreateJob(ctx, "..", "prompt"); return err }(),
		func() error { _, err := c.SendMessage(ctx, "p", "..", "prompt"); return err }(),
		func() error { _, err := c.Rows(ctx, Views, "..", day, 10, 0); return err }(),
		func() error { _, err := c.Searches(ctx, ".", day, 10, ""); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "dot segment") {
			t.Errorf("err = %v, want a refusal", err)
		}
	}
	if calls.Load() != 0 {
		t.Fatalf("%d requests sent", calls.Load())
	}
	// Slashes are escaped, not refused, at this level: the id stays one segment.
	var path atomic.Value
	c2, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path.Store(r.URL.EscapedPath())
		fmt.Fprint(w, `{"id":"j","status":"active"}`)
	}), func(o *Options) { o.Key = secret.New(testKey) })
	if _, err := c2.GetJob(ctx, "a/../b", "j"); err != nil {
		t.Fatal(err)
	}
	if got := path.Load(); got != "/v2/agent/a%2F..%2Fb/job/j" {
		t.Errorf("path %v", got)
	}
}

// FuzzScrubText: the key, bearer tokens and mint_ words never survive, the
// output is bounded and has no control characters.
func FuzzScrubText(f *testing.F) {
	for _, s := range []string{
		"Invalid API key",
		"Authorization: Bearer mint_abc123",
		"bearer\tmint_x",
		`{"error":"mint_testkey0123456789"}`,
		strings.Repeat("x", 300) + testKey,
		"\x1b[31mred\x00\n",
		"\xff\xfe mint_",
		"BEARER abc",
	} {
		f.Add(s, testKey)
	}
	f.Add("key=mint_Zz9", "mint_Zz9")
	f.Fuzz(func(t *testing.T, s, key string) {
		if ValidateKey(key) != nil {
			key = "mint_" + strings.Map(func(r rune) rune {
				if unicode.IsSpace(r) {
					return 'k'
				}
				return r
			}, key)
		}
		out := ScrubText(s, key)
		if len(out) > MaxUpstreamText+len("…[truncated]") {
			t.Fatalf("output %d bytes long", len(out))
		}
		if strings.Contains(out, key) {
			t.Fatalf("key %q survives in %q", key, out)
		}
		if strings.ContainsFunc(out, unicode.IsControl) {
			t.Fatalf("control character in %q", out)
		}
		if i := strings.Index(out, "mint_"); i >= 0 {
			t.Fatalf("a mint_ word survives in %q", out)
		}
		if ScrubText(s, key) != out {
			t.Fatal("not deterministic")
		}
	})
}

// A body announced larger than the bound is refused unread: the client
// does not wait for, or buffer, the first bytes of an answer it refuses
// whatever they hold. The handler sends a few bytes of a 1 GiB body and
// then nothing until the client hangs up, so a client that read before
// refusing would wait for its request timeout and fail otherwise.
func TestAnnouncedOversizeBodyIsNotRead(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Length", strconv.Itoa(1<<30))
		fmt.Fprint(w, `{"totals":{"human":1,`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}), func(o *Options) {
		o.MaxBodyBytes = 1024
		// Only a client that reads the body waits for this; the answer's
		// headers come at once.
		o.RequestTimeout = 15 * time.Second
	})
	_, err := c.Rows(context.Background(), Views, "p", day, 250, 0)
	var re *ResponseError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "body exceeds 1024 bytes") {
		t.Fatalf("err = %v, want a *ResponseError saying the body exceeds 1024 bytes", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d calls, want 1 (a retry would be as big)", calls.Load())
	}
}
