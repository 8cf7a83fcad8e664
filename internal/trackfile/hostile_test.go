package trackfile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// A FIFO or a device as the tracked-jobs file is refused at once: a
// blocked read would hold the refresh, and with it shutdown.
func TestReadRefusesSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		done := make(chan error, 1)
		go func() { _, err := Read(p); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Read(%s) = %v", p, err)
			}
		case <-time.After(time.Minute): // only a read that blocks waits this long
			t.Fatalf("Read(%s) blocked", p)
		}
	}
}

// Lines whose project or job part is a dot segment, or that hold more than
// one slash, are skipped on read and refused on append.
func TestDotSegmentLines(t *testing.T) {
	path := tempFile(t)
	content := "p/job_a\np/..\n../job_x\np/.\n./j\np/a/b\n..\njob_b\n/job_c\np/\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); !slices.Equal(got, []string{"p/job_a", "job_b"}) {
		t.Fatalf("Read = %q", got)
	}
	for _, bad := range []string{"p/..", "../j", "..", ".", "p/a/b", "p/", "/j", "p/a%2Fb"} {
		if err := Append(path, bad); err == nil {
			t.Errorf("Append(%q) accepted", bad)
		}
	}
}

// A file over MaxFileSize is refused by Read and Append from its size,
// before it is read, with a message naming the file and the cap; Append
// leaves it as it was.
func TestOversizeFileRefused(t *testing.T) {
	path := tempFile(t)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, MaxFileSize+1); err != nil { // sparse
		t.Fatal(err)
	}
	want := fmt.Sprintf("tracked-jobs file %s is %d bytes, more than the %d allowed", path, MaxFileSize+1, MaxFileSize)
	if _, err := Read(path); err == nil || err.Error() != want {
		t.Errorf("Read = %v\nwant %s", err, want)
	}
	if err := Append(path, "job_1"); err == nil || err.Error() != want {
		t.Errorf("Append = %v\nwant %s", err, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != MaxFileSize+1 {
		t.Errorf("Append changed the file: %v, %v", fi.Size(), err)
	}
}

// TestAppendRefusesLinksAndFIFOs (#46 case 7): a tracked-jobs file that
// is a symbolic link (to a file root alone may write, say) or a FIFO is
// refused at once, naming it; the link's target is left as it was.
func TestAppendRefusesLinksAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(target, []byte("root:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "jobs.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{link: "a symbolic link", fifo: "a FIFO"} {
		done := make(chan error, 1)
		go func() { done <- Append(path, "p/job_1") }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "tracked-jobs file") || !strings.Contains(err.Error(), path+" is not a regular file ("+kind+")") {
				t.Errorf("Append(%s) = %v, want a refusal naming it and %s", path, err, kind)
			}
		case <-testkit.HangGuard(t).Done(): // only an open that blocks waits, until the test's deadline
			t.Fatalf("Append(%s) blocked", path)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "root:secret\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}
