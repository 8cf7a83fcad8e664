package serve

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConfigCheckKeyExpiry: --config.check warns of each key that expires within 14 days or has expired,
// naming it and its date, and still passes; in flag mode --mintlify.api-key-expires-at sets the date.
func TestConfigCheckKeyExpiry(t *testing.T) {
	day := func(days int) string { return time.Now().UTC().AddDate(0, 0, days).Format(time.DateOnly) }
	expired, soon, later := day(-1), day(3), day(100)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "keys.yml")
	if err := os.WriteFile(cfg, []byte("keys:\n"+
		"  - {name: old, api_key_env: EXPIRY_KEY_A, expires_at: "+expired+"}\n"+
		"  - {name: later, api_key_env: EXPIRY_KEY_B, expires_at: "+later+"}\n"+
		"  - {name: soon, api_key_env: EXPIRY_KEY_C, expires_at: "+soon+"}\n"+
		"  - {name: none, api_key_env: EXPIRY_KEY_D}\n"+
		"projects: [{id: p1, key: old}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, env := range []string{"EXPIRY_KEY_A", "EXPIRY_KEY_B", "EXPIRY_KEY_C", "EXPIRY_KEY_D"} {
		t.Setenv(env, "mint_expirytest"+string(rune('a'+i)))
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"--config.file", cfg, "--config.check"}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d, want 0: %s", rc, errb.String())
	}
	checkLines(t, errb.String(), []string{
		"mintlify_exporter: warning: " + cfg + `: line 2: keys[0] "old": the key expired on ` + expired,
		"mintlify_exporter: warning: " + cfg + `: line 4: keys[2] "soon": the key expires on ` + soon,
	})
	if !strings.Contains(errb.String(), "API keys page") || !strings.Contains(out.String(), "is valid: 1 project, 4 keys") {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}

	t.Setenv("MINTLIFY_API_KEY", "mint_expirytestflag")
	for _, tc := range []struct {
		date, warning string
		rc            int
	}{
		{soon, "mintlify_exporter: warning: --mintlify.api-key-expires-at: the key expires on " + soon, 0},
		{later, "", 0},
		{"2026-13-01", `--mintlify.api-key-expires-at must be a date YYYY-MM-DD, got "2026-13-01"`, 1},
	} {
		out.Reset()
		errb.Reset()
		rc := run([]string{"--mintlify.project-id", "p1", "--mintlify.api-key-expires-at", tc.date, "--config.check"}, &out, &errb)
		if rc != tc.rc || (tc.warning == "") != (errb.Len() == 0) || !strings.HasPrefix(errb.String(), tc.warning) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.date, rc, errb.String(), tc.rc, tc.warning)
		}
	}
}

// TestDemoShowsKeyExpiry: the demo's key expires 60 days after it starts, so its dashboard shows the days left.
func TestDemoShowsKeyExpiry(t *testing.T) {
	before := time.Now()
	ts := demoServer(t)
	resp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\nmintlify_api_key_expiry_timestamp_seconds{key=\"demo\"} ")
	if !ok {
		t.Fatal("no mintlify_api_key_expiry_timestamp_seconds{key=\"demo\"} on /metrics")
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]), 64)
	if days := (v - float64(before.Unix())) / 86400; err != nil || days < 59 || days > 61 {
		t.Errorf("the demo key expires in %.1f days (%v), want 60", days, err)
	}
}
