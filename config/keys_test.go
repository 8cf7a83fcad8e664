package config

import (
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
