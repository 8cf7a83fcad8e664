package receiver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// spyBody records whether anything read it.
type spyBody struct {
	io.Reader
	read bool
}

func (b *spyBody) Read(p []byte) (int, error) {
	b.read = true
	return b.Reader.Read(p)
}

func (b *spyBody) Close() error { return nil }

// TestUnauthorizedBodyUnread: a missing or wrong bearer token gets 401
// and the body is never read.
func TestUnauthorizedBodyUnread(t *testing.T) {
	h := newHarness(t, true, testRoutes)
	for _, auth := range []string{"", "Bearer wrong", "Basic " + testToken, "Bearer " + testToken + "x"} {
		body := &spyBody{Reader: bytes.NewReader(gap("billing").body())}
		req := httptest.NewRequest(http.MethodPost, WebhookPath, body)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.rc.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized || body.read {
			t.Errorf("Authorization %q: status %d, body read %v; want 401, unread", auth, rec.Code, body.read)
		}
	}
	if got := len(h.api.Server.Requests()); got != 0 {
		t.Errorf("%d API requests", got)
	}
	mustContain(t, h.scrape(), `mintlify_receiver_notifications_total{status="unauthorized"} 4`)
}

// TestBodyTooLarge: a body over --receiver.max-body-bytes gets 413,
// announced or not.
func TestBodyTooLarge(t *testing.T) {
	h := newHarness(t, true, testRoutes, "--receiver.max-body-bytes", "2048")
	big := gap("billing")
	big.labels["filler"] = strings.Repeat("x", 4096)
	if got := h.post(big.body()); got != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", got)
	}
	req := httptest.NewRequest(http.MethodPost, WebhookPath, io.MultiReader(bytes.NewReader(big.body())))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+testToken)
	rec := httptest.NewRecorder()
	h.rc.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked: status %d, want 413", rec.Code)
	}
	if got := len(h.api.Server.Requests()); got != 0 {
		t.Errorf("%d API requests", got)
	}
}

// TestMalformedPayload: each payload Alertmanager version 4 would not
// send gets 400 and starts nothing.
func TestMalformedPayload(t *testing.T) {
	h := newHarness(t, true, testRoutes)
	good := string(gap("billing").body())
	cases := map[string]string{
		"not JSON":        `{"version":`,
		"version 3":       strings.Replace(good, `"version":"4"`, `"version":"3"`, 1),
		"no group key":    strings.Replace(good, `"groupKey":"{}/`, `"groupKeyX":"{}/`, 1),
		"bad status":      strings.Replace(good, `"status":"firing"`, `"status":"burning"`, 1),
		"bad fingerprint": strings.Replace(good, `"fingerprint":"a1b2c3d4e5f60718"`, `"fingerprint":"not hex"`, 1),
		"no alerts":       `{"version":"4","groupKey":"g","status":"firing","alerts":[]}`,
		"no alertname":    `{"version":"4","groupKey":"g","status":"firing","alerts":[{"status":"firing","labels":{},"fingerprint":"1"}]}`,
	}
	for name, body := range cases {
		if got := h.post([]byte(body)); got != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, got)
		}
	}
	if got := len(h.api.Server.Requests()); got != 0 {
		t.Errorf("%d API requests", got)
	}
	if got := h.post([]byte(good)); got != http.StatusOK {
		t.Errorf("the good payload: status %d", got)
	}
}

// TestTrailingDataAndDuplicateKeysRefused: a notification followed by
// anything but white space, or with a key twice in one object (a field
// name in another case included, which Go's decoder would also take),
// gets 400 and starts nothing: no later value may override what was
// checked.
func TestTrailingDataAndDuplicateKeysRefused(t *testing.T) {
	h := newHarness(t, true, testRoutes)
	good := string(gap("billing").body())
	cases := map[string]string{
		"trailing garbage":    good + `}{garbage`,
		"second notification": good + good,
		"trailing value":      good + ` 1`,
		"duplicate status":    `{"status":"resolved",` + good[1:],
		"status in capitals":  `{"Status":"resolved",` + good[1:],
		"duplicate group key": strings.Replace(good, `"groupKey":`, `"groupKey":"other","groupKey":`, 1),
		"duplicate label":     strings.Replace(good, `"labels":{`, `"labels":{"category":"api-keys",`, 1),
		"duplicate alert key": strings.Replace(good, `"fingerprint":`, `"fingerprint":"ff","fingerprint":`, 1),
	}
	for name, body := range cases {
		if body == good {
			t.Fatalf("%s: the case changed nothing", name)
		}
		if got := h.post([]byte(body)); got != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, got)
		}
	}
	if got := len(h.api.Server.Requests()); got != 0 {
		t.Errorf("%d API requests", got)
	}
	if got := h.post([]byte(good + "\n\t ")); got != http.StatusOK {
		t.Errorf("the good payload with trailing white space: status %d", got)
	}
}
