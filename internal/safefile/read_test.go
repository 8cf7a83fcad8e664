package safefile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

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

// notBlocking runs f and fails the test if it does not return: only a
// call blocked on a FIFO's writer waits for the minute.
func notBlocking(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("blocked")
		return nil
	}
}

func TestReadRegular(t *testing.T) {
	p := write(t, "f", []byte("hello\n"))
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, link} { // symbolic links are followed
		b, err := Read(path, "test file", 6)
		if err != nil || string(b) != "hello\n" {
			t.Errorf("Read(%s) = %q, %v", path, b, err)
		}
	}
	b, err := Read(write(t, "empty", nil), "test file", 0)
	if err != nil || len(b) != 0 {
		t.Errorf("empty file: %q, %v", b, err)
	}
}

// Anything but a regular file is refused from fstat, before a read, and a
// FIFO (directly or through a link) without waiting for a writer.
func TestRefusesSpecialFiles(t *testing.T) {
	fifo := mkfifo(t)
	fifoLink := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ path, kind string }{
		{fifo, "a FIFO"},
		{fifoLink, "a FIFO"},
		{dir, "a directory"},
		{"/dev/zero", "a character device"},
		{"/dev/null", "a character device"},
	} {
		if _, err := os.Stat(tc.path); err != nil {
			t.Logf("skipping %s: %v", tc.path, err)
			continue
		}
		err := notBlocking(t, func() error { _, err := Read(tc.path, "key file", 1<<20); return err })
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Path != tc.path || nr.Role != "key file" {
			t.Errorf("Read(%s) = %v, want a *NotRegularError", tc.path, err)
			continue
		}
		want := "key file " + tc.path + " is not a regular file (" + tc.kind + "); refusing to read it"
		if err.Error() != want {
			t.Errorf("Read(%s):\n got %q\nwant %q", tc.path, err, want)
		}
		err = notBlocking(t, func() error { _, err := Open(tc.path, "key file", 1<<20); return err })
		if !errors.As(err, &nr) {
			t.Errorf("Open(%s) = %v, want a *NotRegularError", tc.path, err)
		}
	}
}

// A file over the cap is refused from fstat's size, before any read: the
// error carries the size only fstat knows (a read would stop at cap+1 and
// report -1), so a 1 TiB sparse file costs one fstat.
func TestOversizeRefusedBeforeReading(t *testing.T) {
	sparse := write(t, "sparse", nil)
	if err := os.Truncate(sparse, 1<<40); err != nil {
		t.Skip(err)
	}
	var tl *TooLargeError
	_, err := Read(sparse, "api_key_file", 4096)
	if !errors.As(err, &tl) || tl.Size != 1<<40 || tl.Limit != 4096 {
		t.Fatalf("Read(1 TiB sparse) = %v (%#v), want a *TooLargeError from fstat", err, tl)
	}
	if want := "api_key_file " + sparse + " is 1099511627776 bytes, more than the 4096 allowed"; err.Error() != want {
		t.Fatalf("got %q\nwant %q", err, want)
	}
	// Nothing of the terabyte is buffered: the refusal allocates a few
	// small objects (the file, the error), not a read buffer.
	if a := testing.AllocsPerRun(5, func() { _, _ = Read(sparse, "api_key_file", 4096) }); a > 20 {
		t.Errorf("refusing the sparse file made %v allocations", a)
	}
	if _, err := Open(sparse, "api_key_file", 4096); !errors.As(err, &tl) || tl.Size != 1<<40 {
		t.Errorf("Open(1 TiB sparse) = %v", err)
	}

	// The cap is inclusive.
	p := write(t, "f", bytes.Repeat([]byte("x"), 10))
	if b, err := Read(p, "f", 10); err != nil || len(b) != 10 {
		t.Errorf("Read at the cap = %d bytes, %v", len(b), err)
	}
	if _, err := Read(p, "f", 9); !errors.As(err, &tl) || tl.Size != 10 {
		t.Errorf("Read one byte over the cap = %v", err)
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope")
	_, err := Read(p, "config file", 10)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read(missing) = %v, want fs.ErrNotExist", err)
	}
	if want := "reading config file: open " + p + ": no such file or directory"; runtime.GOOS != "windows" && err.Error() != want {
		t.Errorf("got %q\nwant %q", err, want)
	}
}

// ReadAll checks the size again (the file may have grown while the
// caller waited for a lock) and reads from the start whatever the offset.
func TestReadAllChecksAgainAndStartsAtZero(t *testing.T) {
	p := write(t, "f", []byte("0123456789"))
	f, err := Open(p, "tracked-jobs file", 10)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 4)
	if _, err := io.ReadFull(f.Reader(), head); err != nil || string(head) != "0123" {
		t.Fatalf("Reader: %q, %v", head, err)
	}
	if b, err := f.ReadAll(); err != nil || string(b) != "0123456789" {
		t.Fatalf("ReadAll after a partial read = %q, %v", b, err)
	}
	if err := os.WriteFile(p, []byte("0123456789A"), 0o600); err != nil {
		t.Fatal(err)
	}
	var tl *TooLargeError
	if _, err := f.ReadAll(); !errors.As(err, &tl) || tl.Size != 11 || tl.Path != p {
		t.Fatalf("ReadAll of a grown file = %v", err)
	}

	// The same for a file the caller opened itself.
	rw, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if _, err := ReadAll(rw, "tracked-jobs file", 10); !errors.As(err, &tl) || tl.Size != 11 {
		t.Fatalf("ReadAll(*os.File) = %v", err)
	}
	if b, err := ReadAll(rw, "tracked-jobs file", 11); err != nil || string(b) != "0123456789A" {
		t.Fatalf("ReadAll(*os.File) = %q, %v", b, err)
	}
	if _, err := ReadAll(openDir(t), "tracked-jobs file", 11); !errors.As(err, new(*NotRegularError)) {
		t.Fatalf("ReadAll(directory) = %v", err)
	}
}

func openDir(t *testing.T) *os.File {
	d, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Reader hands out at most the cap, and says so if the file grew past it
// after Open.
func TestReaderStopsAtTheCap(t *testing.T) {
	p := write(t, "f", []byte("line 1\nline 2\n"))
	f, err := Open(p, "prompt file", 14)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(p, []byte("line 1\nline 2\nline 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f.Reader())
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != -1 || string(b) != "line 1\nline 2\n" {
		t.Fatalf("Reader of a grown file = %q, %v", b, err)
	}
	if want := "prompt file " + p + " is more than the 14 bytes allowed"; err.Error() != want {
		t.Errorf("got %q\nwant %q", err, want)
	}

	g, err := Open(p, "prompt file", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if b, err := io.ReadAll(g.Reader()); err != nil || string(b) != "line 1\nline 2\nline 3\n" {
		t.Fatalf("Reader = %q, %v", b, err)
	}
}

// ReadWithin gives up after its timeout. The read here blocks until the
// test ends, so only the timeout can end the call.
func TestReadWithinTimesOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	read = func(string, string, int64) ([]byte, error) { <-release; return nil, nil }
	defer func() { read = Read }()
	_, err := ReadWithin("/some/file", "config file", 10, time.Millisecond)
	if err == nil || err.Error() != "config file /some/file: reading did not finish within 1ms" {
		t.Fatalf("ReadWithin = %v", err)
	}
}

func TestReadWithinPassesResults(t *testing.T) {
	p := write(t, "f", []byte("abc"))
	if b, err := ReadWithin(p, "f", 3, time.Hour); err != nil || string(b) != "abc" {
		t.Errorf("ReadWithin = %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := ReadWithin(p, "f", 2, time.Hour); !errors.As(err, &tl) {
		t.Errorf("ReadWithin over the cap = %v", err)
	}
}

func TestKind(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeDir | 0o755:                "a directory",
		fs.ModeNamedPipe:                  "a FIFO",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a device",
		fs.ModeSocket:                     "a socket",
		fs.ModeIrregular:                  "mode ?---------",
		fs.ModeSymlink | 0o777:            "a symbolic link",
	} {
		if got := Kind(m); got != want {
			t.Errorf("Kind(%v) = %q, want %q", m, got, want)
		}
	}
}
