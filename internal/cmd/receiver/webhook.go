package receiver

// The webhook request is authenticated before its body is read, bounded, and its version 4 payload validated.

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds of a notification.
const (
	DefaultMaxBodyBytes = 1 << 20
	maxAlerts           = 1000
	maxGroupKeyBytes    = 4096
	maxLabels           = 64
	maxLabelBytes       = 16 << 10 // per name or value; slots refuse far less
)

// message decodes only what the receiver reads; annotations, among others, are never decoded.
type message struct {
	Version  string  `json:"version"`
	GroupKey string  `json:"groupKey"`
	Status   string  `json:"status"`
	Alerts   []alert `json:"alerts"`
}

type alert struct {
	Status      string            `json:"status"`
	Labels      map[string]string `json:"labels"`
	Fingerprint string            `json:"fingerprint"`
}

var fingerprintRE = regexp.MustCompile(`^[0-9a-f]{1,16}$`)

func parseMessage(body []byte) (*message, error) {
	var m message
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON payload: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the payload")
	}
	// After Decode, which bounds the nesting the walk recurses into.
	if err := uniqueKeys(json.NewDecoder(bytes.NewReader(body)), levelMessage); err != nil {
		return nil, err
	}
	switch {
	case m.Version != "4":
		return nil, fmt.Errorf("version %q, want \"4\"", truncate(m.Version))
	case m.Status != "firing" && m.Status != "resolved":
		return nil, errors.New(`status must be "firing" or "resolved"`)
	case m.GroupKey == "" || len(m.GroupKey) > maxGroupKeyBytes || !utf8.ValidString(m.GroupKey):
		return nil, fmt.Errorf("groupKey must be 1 to %d bytes of UTF-8", maxGroupKeyBytes)
	case len(m.Alerts) == 0 || len(m.Alerts) > maxAlerts:
		return nil, fmt.Errorf("alerts must hold 1 to %d alerts", maxAlerts)
	}
	for i, a := range m.Alerts {
		if err := a.check(); err != nil {
			return nil, fmt.Errorf("alerts[%d]: %w", i, err)
		}
	}
	return &m, nil
}

func (a *alert) check() error {
	switch {
	case a.Status != "firing" && a.Status != "resolved":
		return errors.New(`status must be "firing" or "resolved"`)
	case !fingerprintRE.MatchString(a.Fingerprint):
		return errors.New("fingerprint must be 1 to 16 hexadecimal digits")
	case a.Labels["alertname"] == "":
		return errors.New("labels must hold alertname")
	case len(a.Labels) > maxLabels:
		return fmt.Errorf("more than %d labels", maxLabels)
	}
	for k, v := range a.Labels {
		if len(k) > maxLabelBytes || len(v) > maxLabelBytes {
			return fmt.Errorf("a label is over %d bytes", maxLabelBytes)
		}
	}
	return nil
}

// level: Go's decoder matches these structs' field names in any case.
type level int

const (
	levelOther level = iota
	levelMessage
	levelAlerts
	levelAlert
)

var structFields = map[level][]string{
	levelMessage: {"version", "groupKey", "status", "alerts"},
	levelAlert:   {"status", "labels", "fingerprint"},
}

// uniqueKeys refuses a key twice or a field name in another case: Go's decoder would keep the last, not what was checked.
func uniqueKeys(dec *json.Decoder, lv level) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		elem := levelOther
		if lv == levelAlerts {
			elem = levelAlert
		}
		for dec.More() {
			if err := uniqueKeys(dec, elem); err != nil {
				return err
			}
		}
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := tok.(string)
			if seen[k] || slices.ContainsFunc(structFields[lv], func(f string) bool { return f != k && strings.EqualFold(f, k) }) {
				return fmt.Errorf("key %q given twice, or a field's name in another case", truncate(k))
			}
			seen[k] = true
			next := levelOther
			if lv == levelMessage && k == "alerts" {
				next = levelAlerts
			}
			if err := uniqueKeys(dec, next); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	_, err = dec.Token()
	return err
}

func truncate(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}

func (m *message) firing(r *Route) []alert {
	var out []alert
	for _, a := range m.Alerts {
		if a.Status == "firing" && r.matches(a.Labels) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b alert) int { return strings.Compare(a.Fingerprint, b.Fingerprint) })
	return out
}

func (m *message) matching(r *Route) bool {
	return slices.ContainsFunc(m.Alerts, func(a alert) bool { return r.matches(a.Labels) })
}

// ServeHTTP checks the bearer token before reading anything; a 5xx when Mintlify was not reached makes Alertmanager retry.
func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST an Alertmanager webhook payload", http.StatusMethodNotAllowed)
		return
	}
	if !rc.authorized(r) {
		rc.m.notifications.WithLabelValues("unauthorized").Inc()
		w.Header().Set("WWW-Authenticate", `Bearer realm="mintlify_exporter receiver"`)
		w.Header().Set("Connection", "close") // the body stays unread
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if r.ContentLength > rc.maxBody {
		rc.tooLarge(w)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, rc.maxBody))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			rc.tooLarge(w)
			return
		}
		http.Error(w, "reading the body failed", http.StatusBadRequest)
		return
	}
	msg, err := parseMessage(body)
	if err != nil {
		rc.m.notifications.WithLabelValues("malformed").Inc()
		http.Error(w, "malformed notification: "+err.Error(), http.StatusBadRequest)
		return
	}
	rc.m.notifications.WithLabelValues(msg.Status).Inc()
	// Decisions go on if Alertmanager hangs up, as an outcome must be recorded whatever happens to the connection;
	// the answer timeout, under Alertmanager's own, ends them.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), rc.answerTimeout)
	defer cancel()
	if rc.process(ctx, msg) {
		http.Error(w, "Mintlify could not be reached or refused for now; retry", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "ok")
}

func (rc *receiver) tooLarge(w http.ResponseWriter) {
	rc.m.notifications.WithLabelValues("too_large").Inc()
	w.Header().Set("Connection", "close")
	http.Error(w, fmt.Sprintf("body over %d bytes", rc.maxBody), http.StatusRequestEntityTooLarge)
}

// authorized: basic auth and TLS are exporter-toolkit's, before this handler.
func (rc *receiver) authorized(r *http.Request) bool {
	if rc.token == nil {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(rc.token.Reveal())) == 1
}
