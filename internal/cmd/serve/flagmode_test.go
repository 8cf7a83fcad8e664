package serve

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
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
		{"url with user info", "mint_flagmode1", []string{"--mintlify.api-url=https://u:secretpw@api.mintlify.com"},
			`--mintlify.api-url must not contain a query, fragment or user info, got "https://xxxxx@api.mintlify.com"`},
		{"url port out of range", "mint_flagmode1", []string{"--mintlify.api-url=http://127.0.0.1:99999"},
			`--mintlify.api-url must have a port from 1 to 65535, got "http://127.0.0.1:99999"`},
		{"request timeout of 1ns", "mint_flagmode1", []string{"--mintlify.request-timeout=1ns"},
			"--mintlify.request-timeout must be at least 1s and at most 1h0m0s, got 1ns"},
		{"tracked-jobs file /dev/null", "mint_flagmode1", []string{"--mintlify.tracked-jobs-file=/dev/null"},
			"--mintlify.tracked-jobs-file /dev/null: not a regular file"},
		// --config.check only warns of it (TestConfigCheckTrackedJobsFile); the online check refuses it, as the start does.
		{"tracked-jobs file in a missing directory", "mint_flagmode1", []string{"--config.check-online", "--mintlify.tracked-jobs-file=" + filepath.Join(missing, "jobs.txt")},
			"--mintlify.tracked-jobs-file " + filepath.Join(missing, "jobs.txt") + ": its directory " + missing + " does not exist"},
		{"project id with a slash", "mint_flagmode1", []string{"--mintlify.project-id=a/b"},
			`--mintlify.project-id (or MINTLIFY_PROJECT_ID): id "a/b" must not contain '/'`},
		{"bad window", "mint_flagmode1", []string{"--mintlify.window=3x"}, `--mintlify.window "3x"`},
		{"request timeout of a century", "mint_flagmode1", []string{"--mintlify.request-timeout=876000h"},
			"--mintlify.request-timeout must be at least 1s and at most 1h0m0s, got 876000h0m0s"},
		{"placeholder project id", "mint_flagmode1", []string{"--mintlify.project-id=YOUR_PROJECT_ID"},
			`--mintlify.project-id (or MINTLIFY_PROJECT_ID): id "YOUR_PROJECT_ID" is the example's placeholder`},
		{"two windows of one length", "mint_flagmode1", []string{"--mintlify.window=1d", "--mintlify.window=24h"},
			`--mintlify.window "24h" is the same length as the earlier --mintlify.window "1d"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("MINTLIFY_API_KEY", c.key)
			t.Setenv("MINTLIFY_PROJECT_ID", "proj-flags")
			var out, errb bytes.Buffer
			check := []string{"--config.check"}
			if slices.Contains(c.args, "--config.check-online") {
				check = nil
			}
			rc := run(append(check, c.args...), &out, &errb)
			if rc != 1 {
				t.Errorf("exit %d, want 1", rc)
			}
			msg := errb.String()
			if !strings.Contains(msg, c.want) {
				t.Errorf("log %q does not contain %q", msg, c.want)
			}
			for _, word := range []string{"keys[0]", "api_key_file", "api_key_env", "global", "projects[0]", "secretpw"} {
				if strings.Contains(msg, word) {
					t.Errorf("flag mode speaks of the config file's %q: %s", word, msg)
				}
			}
		})
	}
}

// TestFlagModeKindSettings: without --config.file, a kind's setting out
// of its range (each setting of each row of collector.All, so a new one is
// covered) is named by its flag, never by the configuration file's key
// the user did not write; placeholder id from MINTLIFY_PROJECT_ID alone
// names the variable too.
func TestFlagModeKindSettings(t *testing.T) {
	type row struct{ name, arg, want string }
	var rows []row
	for _, k := range collector.All {
		if k.TopN > 0 {
			flag := "--" + k.Flag(spec.TopNSetting)
			for _, v := range []int{0, config.MaxTopN + 1, 100000} {
				rows = append(rows, row{fmt.Sprintf("%s=%d", flag, v), fmt.Sprintf("%s=%d", flag, v),
					fmt.Sprintf("%s must be between 1 and %d, got %d", flag, config.MaxTopN, v)})
			}
		}
		if k.LookBack > 0 {
			flag := "--" + k.Flag(spec.LookBackSetting)
			for _, v := range []config.Duration{0, config.MinLookBack / 2, config.MaxLookBack + config.MinLookBack} {
				rows = append(rows, row{flag + "=" + v.String(), flag + "=" + v.String(),
					fmt.Sprintf("%s must be between %s and %s, got %s", flag, config.MinLookBack, config.MaxLookBack, v)})
			}
		}
	}
	for _, k := range collector.All {
		if k.TopN > 0 {
			flag := "--" + k.Flag(spec.TopNSetting)
			for _, v := range []string{"99999999999999999999", "-99999999999999999999", "1.5", "ten"} {
				rows = append(rows, row{flag + "=" + v, flag + "=" + v,
					fmt.Sprintf("%s must be between 1 and %d, got %s", flag, config.MaxTopN, v)})
			}
		}
	}
	if len(rows) < 3*2 {
		t.Fatalf("%d rows: collector.All has fewer settings than the searches', conversations' and feedback backlog's", len(rows))
	}
	rows = append(rows, row{"MINTLIFY_PROJECT_ID placeholder", "",
		`--mintlify.project-id (or MINTLIFY_PROJECT_ID): id "YOUR_PROJECT_ID" is the example's placeholder`})
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Setenv("MINTLIFY_API_KEY", "mint_flagmode1")
			t.Setenv("MINTLIFY_PROJECT_ID", "proj-flags")
			args := []string{"--config.check"}
			if r.arg != "" {
				args = append(args, r.arg)
			} else {
				t.Setenv("MINTLIFY_PROJECT_ID", config.PlaceholderProjectID)
			}
			var out, errb bytes.Buffer
			if rc := run(args, &out, &errb); rc != 1 {
				t.Errorf("exit %d, want 1", rc)
			}
			msg := errb.String()
			if !strings.Contains(msg, r.want) {
				t.Errorf("log %q does not contain %q", msg, r.want)
			}
			words := []string{"global", "projects[0]", "collector_top_n", "collector_look_back"}
			for _, k := range collector.All {
				for _, setting := range []string{spec.TopNSetting, spec.LookBackSetting} {
					words = append(words, k.Key(setting))
				}
			}
			for _, word := range words {
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
