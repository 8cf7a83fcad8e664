package exporter_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/mintlify-exporter/mintlify_exporter/config"
)

// TestKeyExpiry: a key's expires_at is mintlify_api_key_expiry_timestamp_seconds{key}, 00:00 UTC of the day,
// only for keys that have one, under a pedantic registry; a reload changes it, a refused one does not.
func TestKeyExpiry(t *testing.T) {
	const yaml = "global: {api_url: %s}\nkeys:\n" +
		"  - {name: acme, api_key_env: TEST_MINTLIFY_KEY, expires_at: 2026-12-04}\n" +
		"  - {name: other, api_key_env: OTHER_KEY}\n" +
		"projects: [{id: proj-docs, name: docs, key: acme}]\n"
	keys := map[string]string{testKeyEnv: testKey, "OTHER_KEY": "mint_otherkey77"}
	e := newEnv(t, yaml, envOpts{withAPIM: true, getenv: func(k string) string { return keys[k] }})
	const want = `# HELP mintlify_api_key_expiry_timestamp_seconds Unix time the API key expires: 00:00 UTC of its configured expires_at, which only the Mintlify dashboard shows (the API never tells it). Only for keys with expires_at.
# TYPE mintlify_api_key_expiry_timestamp_seconds gauge
mintlify_api_key_expiry_timestamp_seconds{key="acme"} 1.7963424e+09
`
	const name = "mintlify_api_key_expiry_timestamp_seconds"
	if err := testutil.GatherAndCompare(e.reg, strings.NewReader(want), name); err != nil {
		t.Fatal(err)
	}

	cfg, err := config.Parse([]byte(strings.Replace(strings.Replace(yaml, "%s", e.api.URL(), 1),
		"api_key_env: OTHER_KEY}", "api_key_env: OTHER_KEY, expires_at: 2027-01-01}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.exp.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	reloaded := want + name + `{key="other"} 1.7987616e+09` + "\n"
	if err := testutil.GatherAndCompare(e.reg, strings.NewReader(reloaded), name); err != nil {
		t.Errorf("after a reload: %v", err)
	}

	bad := *cfg
	bad.Keys = append([]config.Key(nil), cfg.Keys...)
	bad.Keys[0].ExpiresAt = config.Date{}
	bad.Keys[1].APIKeyEnv = "UNSET_KEY"
	if err := e.exp.Apply(&bad); err == nil {
		t.Fatal("a reload with an unreadable key was applied")
	}
	if err := testutil.GatherAndCompare(e.reg, strings.NewReader(reloaded), name); err != nil {
		t.Errorf("after a refused reload: %v", err)
	}
}
