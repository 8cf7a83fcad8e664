package safefile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestMoveAsideKeepsTheNewest: each file moved aside is kept under its
// time, as it was; of five, the KeepAside newest are left, and other
// files of the directory are not touched.
func TestMoveAsideKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	other := filepath.Join(dir, "state.json.ledger.corrupt-20200101T000000.000Z")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var names []string
	for i := range 5 {
		body := []byte{byte('a' + i)}
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		aside, err := MoveAside(path, start.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(aside); err != nil || string(b) != string(body) {
			t.Fatalf("%s holds %q (%v), want %q", aside, b, err, body)
		}
		names = append(names, aside)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("%s still exists (%v)", path, err)
	}
	kept, _ := filepath.Glob(path + ".corrupt-*")
	if want := names[len(names)-KeepAside:]; !slices.Equal(kept, want) {
		t.Errorf("kept %v, want the %d newest %v", kept, KeepAside, want)
	}
	if _, err := os.Lstat(other); err != nil {
		t.Errorf("another file's moved-aside copy was removed: %v", err)
	}
}
