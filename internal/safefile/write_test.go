package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("file holds %q, want new", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files left in the directory, want 1", len(entries))
	}
}

func TestFailedWriteKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.om")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Begin(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	p.Abort() // the writer failed half-way
	if err := p.Commit(); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("file holds %q after a failed write, want old", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("%d files left in the directory, want 1 (the temporary one removed)", len(entries))
	}
}

// TestWriteNeverReplacesWhatIsNotAFile: a symbolic link, a FIFO and a
// directory at the path are refused, named in the error, and left as
// they were; nothing is written through the link.
func TestWriteNeverReplacesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "dir.json")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, what := range map[string]string{link: "a symbolic link", fifo: "a FIFO", sub: "a directory"} {
		err := Write(path, []byte("ours"))
		var nr *NotRegularTargetError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
			t.Errorf("%s: %v", path, err)
		}
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s was replaced", path)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Errorf("written through the link: %q", b)
	}
}

// TestRemoveStale removes the temporary files a killed write left, and
// nothing else: not the file, not another file's temporaries, not other
// names.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	keep := []string{"state.json", ".state.json.ledger.123.tmp", "state.json.123.tmp", ".state.json.123.bak", "other"}
	stale := []string{".state.json.123456.tmp", ".state.json.987.tmp"}
	for _, name := range append(append([]string{}, keep...), stale...) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := RemoveStale(path)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if !slices.Equal(removed, stale) {
		t.Errorf("removed %v, want %v", removed, stale)
	}
	for _, name := range keep {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s removed", name)
		}
	}
	// What Write leaves on failure is what RemoveStale finds.
	p, err := Begin(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Abort()
	entries, _ := os.ReadDir(dir)
	found := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") && strings.HasPrefix(e.Name(), ".state.json.") && !slices.Contains(keep, e.Name()) {
			found++
			if got, _ := RemoveStale(path); len(got) != 1 {
				t.Errorf("RemoveStale does not recognise Write's temporary file %s", e.Name())
			}
		}
	}
	if found != 1 {
		t.Errorf("%d temporary files of a write in progress, want 1", found)
	}
}
