package trackfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

func tempFile(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "jobs.txt")
}

func mustRead(t *testing.T, path string) []string {
	t.Helper()
	ids, err := Read(path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return ids
}

func fileContent(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTrackAppendReadRoundTrip(t *testing.T) {
	path := tempFile(t)
	want := []string{"job_1", "job_2", "job_0003"}
	for _, id := range want {
		if err := Append(path, id); err != nil {
			t.Fatalf("Append(%q): %v", id, err)
		}
	}
	if got := mustRead(t, path); !slices.Equal(got, want) {
		t.Fatalf("Read = %q, want %q", got, want)
	}
	if got := fileContent(t, path); got != "job_1\njob_2\njob_0003\n" {
		t.Fatalf("file = %q", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&^0o644 != 0 {
		t.Errorf("mode %v, want at most 0644", perm)
	}
}

func TestTrackDuplicatesIgnored(t *testing.T) {
	path := tempFile(t)
	for _, id := range []string{"a", "b", "a", "b", "c", "a"} {
		if err := Append(path, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := fileContent(t, path); got != "a\nb\nc\n" {
		t.Fatalf("file = %q, want each id once", got)
	}
	// Duplicates written by hand are reported once, first position wins.
	if err := os.WriteFile(path, []byte("x\ny\nx\n  y  \nz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); !slices.Equal(got, []string{"x", "y", "z"}) {
		t.Fatalf("Read = %q", got)
	}
}

func TestTrackMissingFile(t *testing.T) {
	ids, err := Read(filepath.Join(t.TempDir(), "nope.txt"))
	if err != nil || len(ids) != 0 {
		t.Fatalf("Read(missing) = %q, %v; want empty, nil", ids, err)
	}
	// A missing directory is a clear error on Append, and nothing is created.
	dir := filepath.Join(t.TempDir(), "no-such-dir")
	err = Append(filepath.Join(dir, "jobs.txt"), "job_1")
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Append into missing dir: %v", err)
	}
	if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
		t.Fatalf("directory was created: %v", serr)
	}
	// Other errors are returned: a directory is not a tracked-jobs file.
	if _, err := Read(t.TempDir()); err == nil {
		t.Fatal("Read(directory) succeeded")
	}
}

func TestTrackCommentsBlankAndInvalidLines(t *testing.T) {
	path := tempFile(t)
	content := "# jobs for the docs site\n\njob_a\n   # indented comment\n\t\njob_b\r\n" +
		"two words\n" + strings.Repeat("x", mintlify.MaxIDLen+1) + "\n  job_c  \n#job_d\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); !slices.Equal(got, []string{"job_a", "job_b", "job_c"}) {
		t.Fatalf("Read = %q", got)
	}
	// A comment mentioning an id does not count as tracking it.
	if err := Append(path, "job_d"); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); !slices.Equal(got, []string{"job_a", "job_b", "job_c", "job_d"}) {
		t.Fatalf("Read = %q", got)
	}
}

func TestTrackHandEditedNoTrailingNewline(t *testing.T) {
	path := tempFile(t)
	if err := os.WriteFile(path, []byte("job_a\njob_b"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The unterminated last line could be a write in progress: not an id yet.
	if got := mustRead(t, path); !slices.Equal(got, []string{"job_a"}) {
		t.Fatalf("Read = %q", got)
	}
	if err := Append(path, "job_c"); err != nil {
		t.Fatal(err)
	}
	if got := fileContent(t, path); got != "job_a\njob_b\njob_c\n" {
		t.Fatalf("file = %q: ids must not run together", got)
	}
	if got := mustRead(t, path); !slices.Equal(got, []string{"job_a", "job_b", "job_c"}) {
		t.Fatalf("Read = %q", got)
	}
	// Appending the id of the unterminated line writes it complete.
	if err := os.WriteFile(path, []byte("job_a\njob_b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, "job_b"); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); !slices.Equal(got, []string{"job_a", "job_b"}) {
		t.Fatalf("Read = %q", got)
	}
}

func TestTrackInvalidIDs(t *testing.T) {
	path := tempFile(t)
	for _, id := range []string{"", " ", "a b", "a\nb", "a\tb", "a\x00b", "a\x7fb", "#job", "\xff\xfe",
		strings.Repeat("j", mintlify.MaxIDLen+1), "job\u00a0x"} {
		if err := Append(path, id); err == nil {
			t.Errorf("Append(%q) succeeded", id)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("invalid ids created the file: %v", err)
	}
	long := strings.Repeat("j", mintlify.MaxIDLen)
	if err := Append(path, long); err != nil {
		t.Fatalf("Append(%d bytes): %v", mintlify.MaxIDLen, err)
	}
	if err := Append(path, "ok/with-ünïcode_and.dots"); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); !slices.Equal(got, []string{long, "ok/with-ünïcode_and.dots"}) {
		t.Fatalf("Read = %q", got)
	}
}

func TestTrackFollowsReplacedFile(t *testing.T) {
	// An editor saves by renaming a new file over the old one; appends go
	// to the file now at path.
	path := tempFile(t)
	if err := Append(path, "job_a"); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte("job_a\n# edited\njob_b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, "job_c"); err != nil {
		t.Fatal(err)
	}
	if got := fileContent(t, path); got != "job_a\n# edited\njob_b\njob_c\n" {
		t.Fatalf("file = %q", got)
	}
}

// Environment variables for the helper process of the concurrency test.
const (
	helperPathEnv   = "TRACKFILE_TEST_HELPER_PATH"
	helperPrefixEnv = "TRACKFILE_TEST_HELPER_PREFIX"
	helperCountEnv  = "TRACKFILE_TEST_HELPER_COUNT"
)

// TestTrackHelperProcess is not a test: TestTrackConcurrentAppends runs the
// test binary again with it selected, as a second process appending to the
// same file.
func TestTrackHelperProcess(t *testing.T) {
	path := os.Getenv(helperPathEnv)
	if path == "" {
		// Not a test of its own: TestTrackConcurrentAppends re-runs the test
		// binary with this function and the env set, as a second appender.
		return
	}
	n, err := strconv.Atoi(os.Getenv(helperCountEnv))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range concurrentIDs(os.Getenv(helperPrefixEnv), n) {
		if err := Append(path, id); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); err != nil {
			t.Fatal(err)
		}
	}
}

// concurrentIDs are a writer's distinct ids interleaved with ids every
// writer appends, so concurrent appends of one id are exercised too.
func concurrentIDs(prefix string, n int) []string {
	ids := make([]string, 0, 2*n)
	for i := range n {
		ids = append(ids, fmt.Sprintf("%s-%03d", prefix, i))
		if i%2 == 0 {
			ids = append(ids, fmt.Sprintf("job_shared-%03d", i/2))
		}
	}
	return ids
}

func TestTrackConcurrentAppends(t *testing.T) {
	const (
		writers   = 8
		perWriter = 60
		procIDs   = 150
	)
	path := tempFile(t)
	want := map[string]bool{}
	for w := range writers {
		for _, id := range concurrentIDs(fmt.Sprintf("job_g%d", w), perWriter) {
			want[id] = true
		}
	}
	for _, id := range concurrentIDs("job_proc", procIDs) {
		want[id] = true
	}

	helper := exec.Command(os.Args[0], "-test.run=^TestTrackHelperProcess$", "-test.count=1")
	helper.Env = append(os.Environ(), helperPathEnv+"="+path, helperPrefixEnv+"=job_proc",
		helperCountEnv+"="+strconv.Itoa(procIDs))
	out := &strings.Builder{}
	helper.Stdout, helper.Stderr = out, out
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for _, id := range concurrentIDs(fmt.Sprintf("job_g%d", w), perWriter) {
				if err := Append(path, id); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	done := make(chan struct{})
	readerErr := make(chan error, 1)
	reads := 0
	go func() {
		defer close(readerErr)
		var prev []string
		for {
			finished := false
			select {
			case <-done:
				finished = true
			default:
			}
			ids, err := Read(path)
			if err != nil {
				readerErr <- err
				return
			}
			reads++
			seen := map[string]bool{}
			for _, id := range ids {
				if !want[id] {
					readerErr <- fmt.Errorf("read returned %q, which no writer appended (torn line?)", id)
					return
				}
				if seen[id] {
					readerErr <- fmt.Errorf("read returned %q twice", id)
					return
				}
				seen[id] = true
			}
			// The file only grows: what one read saw, the next sees too,
			// in the same order.
			if len(ids) < len(prev) || !slices.Equal(ids[:len(prev)], prev) {
				readerErr <- fmt.Errorf("read %d ids, not an extension of the previous %d", len(ids), len(prev))
				return
			}
			prev = ids
			if finished {
				return
			}
		}
	}()

	wg.Wait()
	herr := helper.Wait()
	close(done)
	if err := <-readerErr; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if herr != nil {
		t.Fatalf("helper process: %v\n%s", herr, out)
	}
	if !strings.Contains(out.String(), "PASS") {
		t.Fatalf("helper process did not run its appends:\n%s", out)
	}
	if reads == 0 {
		t.Fatal("the reader never read")
	}

	got := mustRead(t, path)
	if len(got) != len(want) {
		t.Errorf("read %d ids at the end, want %d", len(got), len(want))
	}
	for _, id := range got {
		delete(want, id)
	}
	if len(want) > 0 {
		t.Errorf("ids lost: %v", want)
	}
	// The file itself, not just Read, holds each id once and only whole lines.
	lines := strings.Split(fileContent(t, path), "\n")
	if last := lines[len(lines)-1]; last != "" {
		t.Errorf("file does not end with a newline: %q", last)
	}
	lines = lines[:len(lines)-1]
	if len(lines) != len(got) {
		t.Errorf("file has %d lines for %d ids: duplicates or blank lines written", len(lines), len(got))
	}
}
