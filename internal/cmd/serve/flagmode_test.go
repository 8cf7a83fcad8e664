package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagModeMessages: without --config.file, every error about the
// project, key or URL names the flags and environment variables the user
// set, never the configuration file's settings (keys[0], api_key_file,
// global.api_url).
func TestFlagModeMessages(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name string
		key  string // MINTLIFY_API_KEY
		args []string
		want string
	}{
		{"key file missing", "", []string{"--mintlify.api-key-file=" + missing},
			"reading --mintlify.api-key-file: open " + missing + ": no such file or directory"},
		{"key file empty", "", []string{"--mintlify.api-key-file=" + empty},
			"no usable API key in --mintlify.api-key-file: file " + empty + " is empty"},
		{"no key", "", nil,
			"no API key: environment variable MINTLIFY_API_KEY is empty; set it to an admin key, or give --mintlify.api-key-file"},
		{"assistant key", "mint_dsc_assistantkey1", nil,
			"the key in the MINTLIFY_API_KEY environment variable: API key is an assistant key"},
		{"malformed url", "mint_flagmode1", []string{"--mintlify.api-url=api.mintlify.com"},
			`--mintlify.api-url must be an absolute http or https URL, got "api.mintlify.com"`},
		{"url with user info", "mint_flagmode1", []string{"--mintlify.api-url=https://u:p@api.mintlify.com"},
			"--mintlify.api-url must not contain a query, fragment or user info"},
		{"project id with a slash", "mint_flagmode1", []string{"--mintlify.project-id=a/b"},
			`--mintlify.project-id (or MINTLIFY_PROJECT_ID): id "a/b" must not contain '/'`},
		{"bad window", "mint_flagmode1", []string{"--mintlify.window=3x"}, `--mintlify.window "3x"`},
		{"request timeout of a century", "mint_flagmode1", []string{"--mintlify.request-timeout=876000h"},
			"--mintlify.request-timeout must be more than 0s and at most 1h0m0s, got 876000h0m0s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MINTLIFY_API_KEY", c.key)
			t.Setenv("MINTLIFY_PROJECT_ID", "proj-flags")
			var out, errb bytes.Buffer
			rc := run(append([]string{"--config.check"}, c.args...), &out, &errb)
			if rc != 1 {
				t.Errorf("exit %d, want 1", rc)
			}
			msg := errb.String()
			if !strings.Contains(msg, c.want) {
				t.Errorf("log %q does not contain %q", msg, c.want)
			}
			for _, word := range []string{"keys[0]", "api_key_file", "api_key_env", "global", "projects[0]"} {
				if strings.Contains(msg, word) {
					t.Errorf("flag mode speaks of the config file's %q: %s", word, msg)
				}
			}
		})
	}
}

// TestHelpShowsCollectorDefaults: --help says which collectors are on
// without any flag, and says it right.
func TestHelpShowsCollectorDefaults(t *testing.T) {
	var out bytes.Buffer
	var f flags
	app := newApp(&f)
	app.UsageWriter(&out)
	app.Terminate(func(int) {}) // --help would exit the test binary
	_, _ = app.Parse([]string{"--help"})
	help := strings.Join(strings.Fields(out.String()), " ")
	if _, err := newApp(&f).Parse(nil); err != nil {
		t.Fatal(err)
	}
	for name, on := range f.collectors {
		want := "Enable the " + name + " collector (default: off)"
		if *on {
			want = "Enable the " + name + " collector (default: on)"
		}
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}
