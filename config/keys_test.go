package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	envValue  = "mint_envsecret_4f1c9a"
	fileValue = "mint_filesecret_77b2e0"
)

func TestResolveKeys(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte(fileValue+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]byte(fmt.Sprintf(`
keys:
  - {name: acme, api_key_env: ACME_KEY}
  - {name: partner, api_key_file: %q}
projects:
  - {id: p1, key: acme}
  - {id: p2, key: partner}
`, keyFile)))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ACME_KEY": "  " + envValue + "\r\n"}
	keys, err := c.ResolveKeys(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys["acme"].Reveal() != envValue || keys["partner"].Reveal() != fileValue {
		t.Fatalf("resolved keys: acme=%q partner=%q (%d keys)", keys["acme"].Reveal(), keys["partner"].Reveal(), len(keys))
	}

	// Nothing that prints the config or the resolved keys shows a value.
	for _, s := range []string{
		fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", keys), fmt.Sprintf("%+v", keys),
	} {
		if strings.Contains(s, envValue) || strings.Contains(s, fileValue) {
			t.Errorf("secret printed: %s", s)
		}
	}
}

func TestResolveKeysErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	blank := write("blank", "\n\n")
	twoLines := write("two", fileValue+"\n"+fileValue+"\n")
	huge := write("huge", strings.Repeat(fileValue, 500))
	missing := filepath.Join(dir, "missing")

	for _, tc := range []struct {
		key  Key
		env  string
		want string
	}{
		{Key{Name: "acme", APIKeyEnv: "MINTLIFY_API_KEY"}, "", `keys[0] "acme": environment variable MINTLIFY_API_KEY is empty`},
		{Key{Name: "acme", APIKeyEnv: "MINTLIFY_API_KEY"}, " \n", `keys[0] "acme": environment variable MINTLIFY_API_KEY is empty`},
		{Key{Name: "acme", APIKeyEnv: "MINTLIFY_API_KEY"}, envValue + " " + envValue, `keys[0] "acme": environment variable MINTLIFY_API_KEY contains whitespace`},
		{Key{Name: "acme", APIKeyFile: blank}, "", `keys[0] "acme": file ` + blank + ` is empty`},
		{Key{Name: "acme", APIKeyFile: twoLines}, "", `keys[0] "acme": file ` + twoLines + ` contains whitespace`},
		{Key{Name: "acme", APIKeyFile: huge}, "", `too large to be an API key`},
		{Key{Name: "acme", APIKeyFile: missing}, "", `keys[0] "acme": reading api_key_file: open ` + missing},
	} {
		c := &Config{Keys: []Key{tc.key}}
		keys, err := c.ResolveKeys(func(string) string { return tc.env })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error = %v, want %q", tc.key, err, tc.want)
			continue
		}
		if keys != nil {
			t.Errorf("%+v: keys returned along with an error", tc.key)
		}
		if strings.Contains(err.Error(), envValue) || strings.Contains(err.Error(), fileValue) {
			t.Errorf("error shows the key: %v", err)
		}
	}

	// Every failing key is reported, not just the first.
	c := &Config{Keys: []Key{{Name: "a", APIKeyEnv: "A"}, {Name: "b", APIKeyEnv: "B"}}}
	_, err := c.ResolveKeys(func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), `keys[0] "a"`) || !strings.Contains(err.Error(), `keys[1] "b"`) {
		t.Errorf("error = %v, want both keys named", err)
	}
}

// TestResolveKeysDefaultsToEnviron checks the nil getenv shortcut.
func TestResolveKeysDefaultsToEnviron(t *testing.T) {
	t.Setenv("MINTLIFY_EXPORTER_TEST_KEY", envValue)
	c := &Config{Keys: []Key{{Name: "a", APIKeyEnv: "MINTLIFY_EXPORTER_TEST_KEY"}}}
	keys, err := c.ResolveKeys(nil)
	if err != nil || keys["a"].Reveal() != envValue {
		t.Fatalf("ResolveKeys(nil) = %v, %v", keys, err)
	}
}

// TestKeyErrorsLocated: a key that cannot be read is reported like any
// other mistake of the file, "file: line N: keys[i] "name": ...", with the
// line of its api_key_file or api_key_env; every failing key on its own
// line, in line order.
func TestKeyErrorsLocated(t *testing.T) {
	dir := t.TempDir()
	blank := filepath.Join(dir, "blank")
	if err := os.WriteFile(blank, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	path := filepath.Join(dir, "mintlify.yml")
	data := fmt.Sprintf(`keys:
  - name: acme
    api_key_file: %s
  - name: good
    api_key_env: GOOD_KEY
  - name: partner
    budget_per_hour: 50
    api_key_env: UNSET_KEY
  - name: empty
    api_key_file: blank
projects:
  - id: p
    key: acme
`, missing)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ResolveKeys(func(name string) string {
		if name == "GOOD_KEY" {
			return envValue
		}
		return ""
	})
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		path + `: line 3: keys[0] "acme": reading api_key_file: open ` + missing,
		path + `: line 8: keys[2] "partner": environment variable UNSET_KEY is empty`,
		path + `: line 10: keys[3] "empty": file ` + blank + ` is empty`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("error has %d lines, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d of the error:\n got %s\nwant %s…", i+1, lines[i], w)
		}
	}
	// The cause stays reachable for callers that look into it.
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("errors.Is(err, os.ErrNotExist) = false for %v", err)
	}

	// Parsed from bytes, there is no file to name, but there is a line.
	c, err = Parse([]byte("keys:\n  - name: acme\n    api_key_env: UNSET_KEY\nprojects: [{id: p}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResolveKeys(func(string) string { return "" }); err == nil || err.Error() != `line 3: keys[0] "acme": environment variable UNSET_KEY is empty` {
		t.Errorf("error = %v", err)
	}
}
