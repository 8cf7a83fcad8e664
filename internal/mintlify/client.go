// Package mintlify is a client for Mintlify's admin REST API. It knows nothing of Prometheus; callers count
// requests through an Observer and own the analytics budget: a 429 is returned, never retried.
package mintlify

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// DefaultBaseURL is the vendor's API address.
const DefaultBaseURL = "https://api.mintlify.com"

// Defaults for Options fields left zero.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultMaxRetries     = 3
	DefaultRetryBase      = 250 * time.Millisecond
	DefaultRetryMax       = 8 * time.Second
	// DefaultMaxBodyBytes: a full 250-row page is about 30 kB, so 8 MiB is generous.
	DefaultMaxBodyBytes = 8 << 20
)

// Observer is told of every HTTP attempt; code is 0 when no response arrived.
type Observer func(endpoint string, code int, elapsed time.Duration)

// Options configure a Client. Only Key is required.
type Options struct {
	BaseURL        string        // default DefaultBaseURL
	Key            secret.Secret // admin API key ("mint_…")
	UserAgent      string        // default "mintlify_exporter"
	HTTPClient     *http.Client  // default: a client with TLS verification and sane pools
	RequestTimeout time.Duration // per attempt; default DefaultRequestTimeout
	MaxRetries     int           // retries after the first attempt; default DefaultMaxRetries, negative = none
	RetryBase      time.Duration // first backoff; default DefaultRetryBase
	RetryMax       time.Duration // backoff ceiling; default DefaultRetryMax
	MaxBodyBytes   int64         // default DefaultMaxBodyBytes
	Observer       Observer      // optional
	Logger         *slog.Logger  // optional; debug lines per attempt
}

// Client calls the API. It is safe for concurrent use.
type Client struct {
	o    Options // every default filled in
	base *url.URL
	gate Gate // nil: requests are not gated (see Gated)
}

// New validates the options (the key's type among them) and returns a Client.
func New(o Options) (*Client, error) {
	if err := ValidateKey(o.Key.Reveal()); err != nil {
		return nil, err
	}
	o.BaseURL = cmp.Or(o.BaseURL, DefaultBaseURL)
	base, err := url.Parse(strings.TrimRight(o.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("invalid API URL %q: want an absolute http(s) URL", o.BaseURL)
	}
	o.UserAgent = cmp.Or(o.UserAgent, "mintlify_exporter")
	if o.HTTPClient == nil {
		o.HTTPClient = NewHTTPClient()
	} else if o.HTTPClient.CheckRedirect == nil {
		// Never follow a redirect (see refuseRedirect); a shallow copy keeps the caller's connection pool.
		hc := *o.HTTPClient
		hc.CheckRedirect = refuseRedirect
		o.HTTPClient = &hc
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	} else if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.RetryBase <= 0 {
		o.RetryBase = DefaultRetryBase
	}
	if o.RetryMax <= 0 {
		o.RetryMax = DefaultRetryMax
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Observer == nil {
		o.Observer = func(string, int, time.Duration) {}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Client{o: o, base: base}, nil
}

// String keeps the key out of %v and %+v of a Client and of anything embedding one.
func (c *Client) String() string { return "mintlify.Client(" + c.base.String() + ")" }

// GoString does the same for %#v.
func (c *Client) GoString() string { return c.String() }

// Format covers every other verb.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }

// NewHTTPClient is New's default: TLS verified, redirects refused; share one across Clients to pool connections.
// No ResponseHeaderTimeout: each attempt's context (RequestTimeout) bounds headers and body alike.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	return &http.Client{Transport: t, CheckRedirect: refuseRedirect}
}

// refuseRedirect: following would send the bearer key wherever Location points (Go keeps Authorization on
// another port or http:// of the same host) and spend a request outside the budget; the API documents none.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Gate lets one HTTP attempt through or refuses it: where the exporter and the backfill charge the budget.
type Gate func(ctx context.Context) error

// Gated returns a copy of c whose every HTTP attempt, retries included, first passes gate (ErrWalkStopped).
func (c *Client) Gated(gate Gate) *Client {
	g := *c
	g.gate = gate
	return &g
}

type request struct {
	endpoint string // stable name for metrics and errors
	method   string
	path     string
	query    url.Values
	body     any
	// idempotent: retried on 5xx and transport errors; writes only on dial errors, lest a second job start.
	idempotent bool
	// maxBody lowers MaxBodyBytes for rows carrying visitor text; for a stream it is the bound.
	maxBody int64
	stream  streamDecoder
	// prepaid: the first attempt already passed the gate (a walk asks it in page order).
	prepaid bool
}

func (c *Client) do(ctx context.Context, r request, out any) error {
	target, payload, err := c.prepare(r)
	if err != nil {
		return err
	}
	var lastErr error
	gate := c.gate
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if err := c.backoff(ctx, attempt); err != nil {
				return errors.Join(lastErr, err)
			}
		}
		if gate != nil && (attempt > 0 || !r.prepaid) {
			if err := gate(ctx); err != nil {
				return cmp.Or(lastErr, fmt.Errorf("%w: %w", ErrWalkStopped, err))
			}
		}
		status, body, hdr, err := c.attempt(ctx, r, target, payload)
		if err == nil && status >= 200 && status < 400 {
			return c.final(r, status, body, hdr, out)
		}
		if err == nil {
			err = c.apiError(r.endpoint, status, body, hdr)
		}
		lastErr = err
		if ctx.Err() != nil || attempt >= c.o.MaxRetries || !c.retryable(r, status, err) {
			return err
		}
	}
}

// result is out, or nil and err.
func result[T any](out *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *Client) prepare(r request) (target string, payload []byte, err error) {
	if r.body != nil {
		if payload, err = json.Marshal(r.body); err != nil {
			return "", nil, fmt.Errorf("mintlify %s: encoding request: %w", r.endpoint, err)
		}
	}
	// r.path is already escaped; keep both forms so an id with "/" or a space stays one segment.
	if err := checkSegments(r.path); err != nil {
		return "", nil, fmt.Errorf("mintlify %s: %w", r.endpoint, err)
	}
	u := *c.base
	u.RawPath = c.base.EscapedPath() + r.path
	if p, err := url.PathUnescape(u.RawPath); err == nil {
		u.Path = p
	}
	u.RawQuery = r.query.Encode()
	return u.String(), payload, nil
}

// final: neither a 2xx nor a 3xx answer is retried; the next would be the same.
func (c *Client) final(r request, status int, body []byte, hdr http.Header, out any) error {
	if status >= 300 {
		return c.redirectError(r.endpoint, status, hdr)
	}
	if r.stream != nil {
		return nil // decoded as it was read
	}
	if err := decodeJSON(body, out); err != nil {
		// Validation messages may quote upstream values.
		return &ResponseError{Endpoint: r.endpoint, StatusCode: status, Reason: ScrubText(err.Error(), c.o.Key.Reveal())}
	}
	return nil
}

func (c *Client) retryable(r request, status int, err error) bool {
	if status == http.StatusTooManyRequests {
		return false // the caller owns the budget
	}
	if r.idempotent {
		return status >= 500 || status == 0
	}
	var op *net.OpError
	return status == 0 && errors.As(err, &op) && op.Op == "dial"
}

func (c *Client) backoff(ctx context.Context, attempt int) error {
	d := c.o.RetryBase << (attempt - 1)
	if d > c.o.RetryMax || d <= 0 {
		d = c.o.RetryMax
	}
	return Sleep(ctx, d/2+rand.N(d/2+1))
}

// Sleep waits d, or until ctx ends and returns its error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) attempt(ctx context.Context, r request, target string, payload []byte) (int, []byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.RequestTimeout)
	defer cancel()
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, rd)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("mintlify %s: building request: %w", r.endpoint, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.o.Key.Reveal())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.o.UserAgent)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.o.HTTPClient.Do(req)
	if err != nil {
		elapsed := time.Since(start)
		c.o.Observer(r.endpoint, 0, elapsed)
		c.o.Logger.Debug("API request failed", "endpoint", r.endpoint, "duration", elapsed, "err", scrubURLError(err))
		return 0, nil, nil, fmt.Errorf("mintlify %s: %w", r.endpoint, scrubURLError(err))
	}
	defer resp.Body.Close()
	limit := c.o.MaxBodyBytes
	if r.maxBody > 0 && (r.maxBody < limit || r.stream != nil) {
		limit = r.maxBody
	}
	if r.stream != nil && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return c.readStream(r, req, resp, limit, start)
	}
	body, over, err := readBody(resp, limit)
	c.answered(r, req, resp.StatusCode, start)
	if err != nil {
		return 0, nil, nil, c.readError(r, req, resp.StatusCode, err)
	}
	if over {
		return resp.StatusCode, nil, nil, tooLarge(r, resp.StatusCode, limit)
	}
	return resp.StatusCode, body, resp.Header, nil
}

// answered observes and logs an attempt that got an answer.
func (c *Client) answered(r request, req *http.Request, status int, start time.Time) {
	elapsed := time.Since(start)
	c.o.Observer(r.endpoint, status, elapsed)
	c.o.Logger.Debug("API request", "endpoint", r.endpoint, "method", r.method, "path", req.URL.Path, "status", status, "duration", elapsed)
}

// readError: a body cut short is retried like a transport error (status 0), since the next answer may well be whole.
func (c *Client) readError(r request, req *http.Request, status int, err error) error {
	if req.Context().Err() != nil || isTimeout(err) {
		return fmt.Errorf("mintlify %s: reading response (HTTP %d): %w", r.endpoint, status, err)
	}
	return &ResponseError{Endpoint: r.endpoint, StatusCode: status, Reason: "reading body: " + ScrubText(err.Error(), c.o.Key.Reveal())}
}

// tooLarge: too large to be a real answer; not retried, a retry would be as big.
func tooLarge(r request, status int, limit int64) error {
	return &ResponseError{Endpoint: r.endpoint, StatusCode: status, Reason: fmt.Sprintf("body exceeds %d bytes", limit)}
}

// readBody refuses unread a body whose Content-Length is over limit, else allocates once: io.ReadAll would
// grow by doubling, holding 1.5 times the body at the last copy.
func readBody(resp *http.Response, limit int64) (body []byte, over bool, err error) {
	n := resp.ContentLength
	if n > limit {
		return nil, true, nil
	}
	var buf bytes.Buffer
	if n > 0 {
		buf.Grow(int(n) + bytes.MinRead) // room for the read that sees EOF
	}
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	return buf.Bytes(), int64(buf.Len()) > limit, err
}

func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// decodeJSON uses json.Unmarshal in place: a json.Decoder would first copy up to 8 MiB into its own buffers.
func decodeJSON(body []byte, out any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("empty body")
	}
	if err := json.Unmarshal(body, out); err != nil {
		var tm *tooManyRows
		if errors.As(err, &tm) {
			return tm
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			switch {
			case se.Offset > 0 && json.Valid(body[:se.Offset-1]):
				return errors.New("trailing data after JSON body")
			case se.Offset >= int64(len(body)):
				return errors.New("truncated JSON body")
			}
		}
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	if v, ok := out.(interface{ validate() error }); ok {
		return v.validate()
	}
	return nil
}

// errorBody covers admin {"error"} and analytics {"error", "details":[{"message"}]}.
type errorBody struct {
	Error   string `json:"error"`
	Details []struct {
		Message string `json:"message"`
	} `json:"details"`
}

// apiError scrubs the upstream's text of keys and credentials, cut to MaxUpstreamText, before any log.
func (c *Client) apiError(endpoint string, status int, body []byte, hdr http.Header) error {
	e := &APIError{Endpoint: endpoint, StatusCode: status}
	key := c.o.Key.Reveal()
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil && eb.Error != "" {
		e.Documented = documentedError(body, hdr)
		e.Message = ScrubText(eb.Error, key)
		for _, d := range eb.Details {
			if d.Message == "" {
				continue
			}
			if len(e.Details) == maxDetails {
				e.Details = append(e.Details, fmt.Sprintf("and %d more", len(eb.Details)-maxDetails))
				break
			}
			e.Details = append(e.Details, ScrubText(d.Message, key))
		}
	} else {
		e.Message = http.StatusText(status)
		if len(body) > 0 {
			e.Message += " (non-JSON body)"
		}
	}
	if ra := hdr.Get("Retry-After"); ra != "" {
		if secs, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && secs >= 0 {
			e.RetryAfter, e.HasRetryAfter = time.Duration(secs)*time.Second, true
		} else if t, err := http.ParseTime(ra); err == nil {
			e.RetryAfter, e.HasRetryAfter = max(time.Until(t), 0), true
		}
	}
	return e
}

func documentedError(body []byte, hdr http.Header) bool {
	if mt, _, err := mime.ParseMediaType(hdr.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var eb errorBody
	if dec.Decode(&eb) != nil || eb.Error == "" {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

// redirectError tells only Location's scrubbed origin, so the operator sees where the API URL points.
func (c *Client) redirectError(endpoint string, status int, hdr http.Header) error {
	reason := "redirect not followed (the exporter never follows redirects: set api_url to the address that answers)"
	if loc, err := url.Parse(hdr.Get("Location")); err == nil && loc.Host != "" {
		reason += "; Location points to " + ScrubText(loc.Scheme+"://"+loc.Host, c.o.Key.Reveal())
	}
	return &ResponseError{Endpoint: endpoint, StatusCode: status, Reason: reason}
}

// checkSegments is the last line after the callers' id checks: url.PathEscape leaves dots alone, and a
// normalising proxy would move a "." or ".." request to another endpoint.
func checkSegments(p string) error {
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("refusing request path %q: empty or dot segment (an id of \".\", \"..\" or with a slash?)", p)
		}
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
