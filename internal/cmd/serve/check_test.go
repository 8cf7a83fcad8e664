package serve

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestConfigCheckVerdict: --config.check prints the problems, each located
// in the file, in line order, then the verdict, and nothing else (no
// start-up log lines).
func TestConfigCheckVerdict(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte(`global:
  min_refresh_interval: 30s
  page_size: "lots"
  max_age: 3
keys:
  - name: main
    api_key_env: CHECK_TEST_KEY
    budget_per_hour: abc
projects:
  - id: p1
    windows: [24h, 3x]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"--config.file", bad, "--config.check"}, &out, &errb); rc != 1 {
		t.Fatalf("exit %d, want 1", rc)
	}
	want := []string{
		bad + ": line 3: cannot unmarshal !!str `lots` into int (at `page_size: \"lots\"`)",
		bad + `: line 4: invalid duration "3": not a valid duration string: "3" (at ` + "`max_age: 3`)",
		bad + ": line 8: cannot unmarshal !!str `abc` into int (at `budget_per_hour: abc`)",
		bad + `: line 11: invalid window "3x": unknown unit "x" in duration "3x" (at ` + "`windows: [24h, 3x]`)",
		"mintlify_exporter: the configuration is NOT valid (4 problems)",
	}
	lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
	if len(lines) != len(want) || out.Len() != 0 {
		t.Fatalf("stdout %q, stderr:\n%s\nwant %d lines:\n%s", out.String(), errb.String(), len(want), strings.Join(want, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w)
		}
	}

	good := filepath.Join(dir, "good.yml")
	if err := os.WriteFile(good, []byte(fmt.Sprintf(fileConfig, "https://api.mintlify.com")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MAIN_TEST_KEY", mainTestKey)
	out.Reset()
	errb.Reset()
	if rc := run([]string{"--config.file", good, "--config.check"}, &out, &errb); rc != 0 {
		t.Fatalf("good config: exit %d: %s", rc, errb.String())
	}
	if errb.Len() != 0 || strings.Count(out.String(), "\n") != 1 ||
		!strings.HasPrefix(out.String(), "mintlify_exporter: the configuration "+good+" is valid: 1 project, 1 key (offline") {
		t.Errorf("good config: stdout %q, stderr %q; want only the verdict", out.String(), errb.String())
	}
}

// TestConfigCheckKeyErrorsLocated: keys that cannot be read, or are not
// admin keys, are located in the file like its other mistakes, at start
// and under --config.check alike.
func TestConfigCheckKeyErrorsLocated(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-key")
	dsc := filepath.Join(dir, "dsc-key")
	if err := os.WriteFile(dsc, []byte("mint_dsc_checkassistantkey\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "keys.yml")
	if err := os.WriteFile(cfg, []byte(`keys:
  - name: lost
    api_key_file: no-such-key
  - name: assistant
    api_key_file: dsc-key
projects:
  - id: p1
    key: lost
  - id: p2
    key: assistant
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"--config.file", cfg, "--config.check"}, &out, &errb); rc != 1 {
		t.Fatalf("exit %d, want 1: %s", rc, errb.String())
	}
	want := []string{
		"mintlify_exporter: warning: " + cfg + `: line 3: keys[0] "lost": reading api_key_file: open ` + missing,
		cfg + `: line 5: keys[1] "assistant": `,
		"mintlify_exporter: the configuration is NOT valid (1 problem)",
	}
	checkLines(t, errb.String(), want)

	// With the file readable, the key of the wrong type is located too.
	if err := os.WriteFile(missing, []byte(mainTestKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if rc := run([]string{"--config.file", cfg, "--config.check"}, &out, &errb); rc != 1 {
		t.Fatalf("exit %d, want 1: %s", rc, errb.String())
	}
	checkLines(t, errb.String(), []string{
		cfg + `: line 5: keys[1] "assistant": `,
		"mintlify_exporter: the configuration is NOT valid (1 problem)",
	})
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out.String())
	}
}

// TestConfigCheckKeyFileNotThereYet: a key file that does not exist yet
// (a systemd credential, there only while the unit runs) is a warning
// naming it, and the check passes; the online check and the start need it.
func TestConfigCheckKeyFileNotThereYet(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-key")
	cfg := filepath.Join(dir, "keys.yml")
	if err := os.WriteFile(cfg, []byte("keys:\n  - name: later\n    api_key_file: no-such-key\nprojects:\n  - id: p1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if rc := run([]string{"--config.file", cfg, "--config.check"}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d, want 0: %s", rc, errb.String())
	}
	checkLines(t, errb.String(), []string{"mintlify_exporter: warning: " + cfg + `: line 3: keys[0] "later": reading api_key_file: open ` + missing})
	if !strings.Contains(out.String(), "is valid: 1 project, 1 key (") || !strings.Contains(out.String(), "1 file not there yet") {
		t.Errorf("stdout %q", out.String())
	}
	out.Reset()
	errb.Reset()
	if rc := run([]string{"--config.file", cfg, "--config.check-online"}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), missing) {
		t.Errorf("--config.check-online: exit %d, want 1 naming %s: %s", rc, missing, errb.String())
	}
}

// checkLines checks that text has one line per want, each starting with it.
func checkLines(t *testing.T, text string, want []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s\nwant %d:\n%s", len(lines), text, len(want), strings.Join(want, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w)
		}
	}
}

// TestConfigCheckOnline: --config.check-online reads a job that does not
// exist in each project: 404 passes, 401 and 403 fail with what to do, and
// no analytics call is made.
func TestConfigCheckOnline(t *testing.T) {
	const other = "mint_checkotherorg_7Hq2"
	api := testkit.StartAPI(t, mockapi.Options{
		Keys: []mockapi.KeySpec{
			{Key: mainTestKey, Org: "acme", Scope: mockapi.ReadOnly},
			{Key: other, Org: "globex", Scope: mockapi.ReadOnly, ProjectIDs: []string{"proj-globex"}},
		},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 3}, "proj-globex": {Seed: 2, Paths: 3}},
	})
	cfg := filepath.Join(t.TempDir(), "mintlify.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(fileConfig, api.URL())), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, key string
		code      int
		want      string
	}{
		{"good key", mainTestKey, 0, "every project's key was accepted by the API"},
		{"unknown key", "mint_checkunknown_Kd8", 1, `project "docs": the API refused key "acme" (401)`},
		{"key of another organization", other, 1, `project "docs" (id proj-docs): key "acme" may not read it (403)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MAIN_TEST_KEY", c.key)
			api.Server.ResetRequests()
			var out, errb bytes.Buffer
			rc := run([]string{"--config.file", cfg, "--config.check-online"}, &out, &errb)
			if rc != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q; want %q", rc, c.code, out.String(), errb.String(), c.want)
			}
			reqs := api.Server.Requests()
			if len(reqs) != 1 || reqs[0].Endpoint != mockapi.EndpointGetJob {
				t.Errorf("requests %+v, want one job read", reqs)
			}
			if strings.Contains(out.String()+errb.String(), c.key) {
				t.Error("the key was printed")
			}
		})
	}
}

// TestConfigCheckTrackedJobsFile: a tracked_jobs_file that is not a
// regular file, or whose directory does not exist, is refused at load,
// naming the key and the path; a file not created yet is fine.
func TestConfigCheckTrackedJobsFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MAIN_TEST_KEY", mainTestKey)
	missing := filepath.Join(dir, "missing", "jobs.txt")
	for _, tc := range []struct {
		path, want string
		warn       bool // a warning of --config.check, refused by --config.check-online and the start
	}{
		{"/dev/null", "tracked_jobs_file /dev/null: not a regular file", false},
		{dir, "tracked_jobs_file " + dir + ": not a regular file", false},
		{missing, "tracked_jobs_file " + missing + ": its directory " + filepath.Dir(missing) + " does not exist", true},
		{filepath.Join(dir, "jobs.txt"), "", false},
	} {
		cfg := filepath.Join(dir, "c.yml")
		body := fmt.Sprintf(fileConfig, "https://api.mintlify.com")
		body = strings.Replace(body, "global:\n", "global:\n  tracked_jobs_file: "+tc.path+"\n", 1)
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		rc := run([]string{"--config.file", cfg, "--config.check"}, &out, &errb)
		switch {
		case tc.want == "" && rc != 0:
			t.Errorf("%s: exit %d: %s", tc.path, rc, errb.String())
		case tc.warn && (rc != 0 || !strings.Contains(errb.String(), "warning: "+cfg+": "+tc.want)):
			t.Errorf("%s: exit %d, %q; want 0 and the warning %q", tc.path, rc, errb.String(), cfg+": "+tc.want)
		case tc.want != "" && !tc.warn && (rc != 1 || !strings.Contains(errb.String(), cfg+": "+tc.want)):
			t.Errorf("%s: exit %d, %q; want 1 and %q", tc.path, rc, errb.String(), cfg+": "+tc.want)
		}
		if tc.warn {
			errb.Reset()
			if rc := run([]string{"--config.file", cfg, "--config.check-online"}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), cfg+": "+tc.want) {
				t.Errorf("%s: --config.check-online: exit %d, %q; want 1 and %q", tc.path, rc, errb.String(), tc.want)
			}
		}
	}
}
