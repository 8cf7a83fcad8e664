package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// quick is how long a refusal may take: it must not wait for FileReadTimeout
// (a refusal comes from fstat, before any read), yet is generous for a
// loaded machine.
const quick = FileReadTimeout - time.Second

func mkfifo(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// Special files and oversized files as api_key_file are refused at once,
// with a message naming the field and the file; nothing is read from them.
func TestKeyFileHostile(t *testing.T) {
	sparse := filepath.Join(t.TempDir(), "sparse")
	if err := os.WriteFile(sparse, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<40); err != nil { // 1 TiB, no blocks
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ path, want string }{
		"dev zero": {"/dev/zero", "not a regular file (a character device)"},
		"fifo":     {mkfifo(t), "not a regular file (a FIFO)"},
		"dir":      {t.TempDir(), "not a regular file (a directory)"},
		"sparse":   {sparse, "1099511627776 bytes, more than the 4096 allowed, too large to be an API key"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skip(err)
			}
			c, err := Parse([]byte(fmt.Sprintf("keys: [{name: acme, api_key_file: %q}]\nprojects: [{id: p}]\n", tc.path)))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = c.ResolveKeys(nil)
			if d := time.Since(start); d > quick {
				t.Fatalf("took %v", d)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "api_key_file "+tc.path) ||
				!strings.Contains(err.Error(), `keys[0] "acme"`) {
				t.Fatalf("err = %v, want %q naming the key, the field and the file", err, tc.want)
			}
		})
	}
}

func TestConfigFileHostile(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxConfigFileSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ path, want string }{
		"dev zero": {"/dev/zero", "not a regular file"},
		"fifo":     {mkfifo(t), "not a regular file (a FIFO)"},
		"too big":  {big, fmt.Sprintf("more than the %d allowed", MaxConfigFileSize)},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := LoadFile(tc.path)
			if d := time.Since(start); d > quick {
				t.Fatalf("took %v", d)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "config file "+tc.path) {
				t.Fatalf("err = %v, want %q naming the file", err, tc.want)
			}
		})
	}
}

func TestIDsRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"projects: [{id: '..', name: p}]", `projects[0] "p": id ".." must not be a dot segment`},
		{"projects: [{id: '.', name: p}]", `id "." must not be a dot segment`},
		{"projects: [{id: 'a\\b', name: p}]", `must not contain '/'`},
		{"projects: [{id: 'a%2F..', name: p}]", `must not contain '/'`},
		{"projects: [{id: '" + strings.Repeat("x", 201) + "', name: p}]", `201 bytes long`},
		{"projects: [{id: p, jobs: ['..']}]", `jobs[0]: id ".." must not be a dot segment`},
		{"projects: [{id: p, jobs: [a/b]}]", `jobs[0]: id "a/b" must not contain '/'`},
		{"projects: [{id: p, jobs: [\"a\\u0000\"]}]", `jobs[0]: id "a\x00" must not contain whitespace or control characters`},
	} {
		_, err := Parse([]byte("keys: [{name: acme, api_key_env: K}]\n" + tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

func TestCheckAPIURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://api.mintlify.com":        true,
		"http://127.0.0.1:8080/base":      true,
		"https://user:pw@api.example":     false,
		"https://user@api.example":        false,
		"https://api.example/?":           false,
		"https://api.example/#x":          false,
		"ftp://api.example":               false,
		"api.mintlify.com":                false,
		"https://api.example/?token=abcd": false,
	} {
		if err := CheckAPIURL(raw); (err == nil) != ok {
			t.Errorf("CheckAPIURL(%q) = %v", raw, err)
		}
	}
}
