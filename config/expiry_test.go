package config

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestExpiresAt: a key's expires_at is a calendar day, read strictly, and comes back as written.
func TestExpiresAt(t *testing.T) {
	for _, tc := range []struct{ value, err string }{
		{"2026-12-01", ""},
		{`"2026-12-01"`, ""},
		{"2026-1-2", `got "2026-1-2"`},
		{"2026-02-30", `got "2026-02-30"`},
		{"2026-12-01T00:00:00Z", `got "2026-12-01T00:00:00Z"`},
		{"'2026-12-01 '", `got "2026-12-01 "`},
		{"90d", `got "90d"`},
		{"[2026-12-01]", "expires_at must be a date YYYY-MM-DD"},
	} {
		c, err := Parse([]byte("keys:\n  - name: acme\n    api_key_env: K\n    expires_at: " + tc.value + "\nprojects: [{id: p}]\n"))
		if tc.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.value, err)
				continue
			}
			if got, want := c.Keys[0].ExpiresAt.Time, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
				t.Errorf("%s: expires_at = %v, want %v", tc.value, got, want)
			}
			out, err := yaml.Marshal(c)
			if err != nil || !strings.Contains(string(out), "expires_at: \"2026-12-01\"") {
				t.Errorf("%s: marshalled as\n%s (%v)", tc.value, out, err)
			}
			if c2, err := Parse(out); err != nil || !c2.Keys[0].ExpiresAt.Equal(c.Keys[0].ExpiresAt.Time) {
				t.Errorf("%s: round trip: %v", tc.value, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "line 4: ") || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error = %v, want line 4 and %q", tc.value, err, tc.err)
		}
	}
	c, err := Parse([]byte("keys: [{name: acme, api_key_env: K}]\nprojects: [{id: p}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := yaml.Marshal(c); strings.Contains(string(out), "expires_at") {
		t.Errorf("a key without expires_at is marshalled with one:\n%s", out)
	}
}

// TestExpiringKeys: a key is expiring from ExpiryWarning before its day on, expired included; a key without a date never.
func TestExpiringKeys(t *testing.T) {
	c, err := Parse([]byte(`keys:
  - {name: expired, api_key_env: A, expires_at: 2026-11-01}
  - {name: never, api_key_env: B}
  - {name: soon, api_key_env: C, expires_at: 2026-12-10}
  - {name: later, api_key_env: D, expires_at: 2026-12-16}
projects: [{id: p, key: soon}]
`))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var names []string
	for _, i := range c.ExpiringKeys(now, ExpiryWarning) {
		names = append(names, c.Keys[i].Name+" "+c.Keys[i].ExpiresAt.String())
	}
	if got, want := strings.Join(names, ", "), "expired 2026-11-01, soon 2026-12-10"; got != want {
		t.Errorf("ExpiringKeys = %s, want %s", got, want)
	}
}
