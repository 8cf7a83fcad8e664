package config

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func writeConfig(t *testing.T, path, project string) {
	t.Helper()
	data := "keys: [{name: acme, api_key_env: K}]\nprojects: [{id: " + project + "}]\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestStoreReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yml")
	writeConfig(t, path, "first")
	c, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(c)
	if s.Get() != c {
		t.Fatal("Get does not return the initial config")
	}

	// A bad file is rejected as a whole and the old config stays.
	if err := os.WriteFile(path, []byte("keys: [{name: acme, api_key_env: K}]\nprojects: [{id: x, max_paths: -1}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = s.ReloadFile(path)
	if err == nil || !strings.Contains(err.Error(), "max_paths") {
		t.Fatalf("ReloadFile(bad) = %v, want the max_paths error", err)
	}
	if s.Get() != c || c.Projects[0].ID != "first" {
		t.Fatal("a failed reload replaced or changed the running config")
	}
	if err := s.ReloadFile(filepath.Join(t.TempDir(), "missing.yml")); err == nil || s.Get() != c {
		t.Fatal("reloading a missing file did not fail cleanly")
	}

	// A good file replaces it; the old pointer stays as it was.
	writeConfig(t, path, "second")
	if err := s.ReloadFile(path); err != nil {
		t.Fatal(err)
	}
	if got := s.Get().Projects[0].ID; got != "second" {
		t.Fatalf("after reload project = %q, want second", got)
	}
	if c.Projects[0].ID != "first" {
		t.Fatal("reload modified the old config in place")
	}
}

// TestStoreConcurrent is for -race: readers keep reading while the file is
// reloaded, alternately valid and invalid.
func TestStoreConcurrent(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yml"), filepath.Join(dir, "bad.yml")
	writeConfig(t, good, "p")
	if err := os.WriteFile(bad, []byte("projects: [{id: p, nope: 1}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(c)

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c := s.Get()
				if c == nil || c.Projects[0].ID != "p" || c.Projects[0].KeyName(c) != "acme" {
					t.Error("reader saw an incomplete config")
					return
				}
			}
		})
	}
	var reloaders sync.WaitGroup
	for range 4 {
		reloaders.Go(func() {
			for i := range 50 {
				path := good
				if i%2 == 1 {
					path = bad
				}
				if err := s.ReloadFile(path); (err != nil) != (path == bad) {
					t.Errorf("ReloadFile(%s) = %v", path, err)
				}
			}
		})
	}
	reloaders.Wait()
	close(stop)
	wg.Wait()
}
