package safefile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
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

// TestCurable: moving aside cures a file too large or refused by the
// system; a missing file, one not regular, or a link loop it does not.
func TestCurable(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("reading state file: %w", &fs.PathError{Op: "open", Path: "p", Err: err})
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&TooLargeError{Role: "state file", Path: "p", Size: 2, Limit: 1}, true},
		{wrap(syscall.EACCES), true},
		{wrap(syscall.EIO), true},
		{wrap(syscall.ENOENT), false},
		{wrap(syscall.ELOOP), false},
		{wrap(syscall.EMFILE), false},
		{&NotRegularError{Role: "state file", Path: "p", Mode: fs.ModeNamedPipe}, false},
	} {
		if got := Curable(c.err); got != c.want {
			t.Errorf("Curable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
