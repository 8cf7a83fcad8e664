//go:build unix

package backfill

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

const precious = "IMPORTANT: not the backfill's\n"

// writePrecious writes a file the backfill must leave alone.
func writePrecious(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(precious), 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkPrecious(t *testing.T, path string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != precious {
		t.Errorf("%s was changed: %q (%v)", path, b, err)
	}
}

// runBounded runs the backfill under the test's own hang guard: a run that
// blocks (on a FIFO) fails the test instead of hanging the suite.
func runBounded(t *testing.T, h *backfillHarness, args ...string) (int, string) {
	t.Helper()
	ctx := testkit.HangGuard(t)
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stderr := h.run(ctx, nil, args...)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-ctx.Done():
		t.Fatalf("backfill %v did not return: it blocks on a file it should have refused", args)
		return 0, ""
	}
}

// TestBackfillJournalPathRefused: whatever is at FILE.partial that is not
// this run's journal is refused before the first request (exit 2), with a
// message naming it and, for what is not a regular file, its kind; it is
// left as it was. A FIFO is refused at once, never opened.
func TestBackfillJournalPathRefused(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 5, Paths: 10}, nil)
	other := []string{"--from", "2026-09-01", "--to", "2026-09-02"}
	type pathCase struct {
		name  string
		setup func(t *testing.T, partial string) // makes what is at partial
		check func(t *testing.T, partial string) // it is left as it was
		want  string
	}
	var device []pathCase
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		// Only root makes device nodes; the other kinds run everywhere.
		device = append(device, pathCase{"character device", func(t *testing.T, partial string) {
			if err := syscall.Mknod(partial, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's numbers
				t.Fatal(err)
			}
		}, nil, "is not a regular file (a character device); refusing to open it (remove it, or give another --output)"})
	}
	for _, c := range append(device, []pathCase{
		{"symbolic link to a precious file", func(t *testing.T, partial string) {
			writePrecious(t, partial+".target")
			if err := os.Symlink(filepath.Base(partial)+".target", partial); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, partial string) { checkPrecious(t, partial+".target") }, "is not a regular file (a symbolic link); refusing to open it (remove it, or give another --output)"},
		{"FIFO", func(t *testing.T, partial string) {
			if err := syscall.Mkfifo(partial, 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "is not a regular file (a FIFO); refusing to open it (remove it, or give another --output)"},
		{"socket", func(t *testing.T, partial string) {
			l, err := net.Listen("unix", partial)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
		}, nil, "is not a regular file (a socket); refusing to open it (remove it, or give another --output)"},
		{"directory", func(t *testing.T, partial string) {
			if err := os.Mkdir(partial, 0o755); err != nil {
				t.Fatal(err)
			}
		}, nil, "is not a regular file (a directory); refusing to open it (remove it, or give another --output)"},
		{"unrelated regular file", func(t *testing.T, partial string) { writePrecious(t, partial) }, checkPrecious,
			"exists and is not the progress file of a backfill; refusing to overwrite it (remove it, or give --force)"},
		{"journal of other arguments", func(t *testing.T, partial string) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if code, stderr := h.run(ctx, func(int) { cancel() }, append(other, "--output", strings.TrimSuffix(partial, ".partial"))...); code != cli.ExitError {
				t.Fatalf("interrupted run of other arguments: exit %d: %s", code, stderr)
			}
			h.api.Server.ResetRequests()
			b, _ := os.ReadFile(partial)
			if err := os.WriteFile(partial+".was", b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, partial string) {
			was, _ := os.ReadFile(partial + ".was")
			if b, err := os.ReadFile(partial); err != nil || string(b) != string(was) {
				t.Errorf("the journal of other arguments was changed: %q, was %q (%v)", b, was, err)
			}
		}, "is the progress of a backfill with other arguments"},
	}...) {
		t.Run(c.name, func(t *testing.T) {
			dir, err := os.MkdirTemp(h.dir, "j")
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "h.om")
			partial := out + ".partial"
			c.setup(t, partial)
			before, _ := os.Lstat(partial)
			h.api.Server.ResetRequests()
			code, stderr := runBounded(t, h, "--from", "2026-09-01", "--to", "2026-09-05", "--output", out)
			if code != cli.ExitUsage || !strings.Contains(stderr, partial) || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q naming %s", code, stderr, c.want, partial)
			}
			if n := len(h.views()); n != 0 {
				t.Errorf("%d requests made before the refusal", n)
			}
			if after, err := os.Lstat(partial); err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
				t.Errorf("%s was replaced (%v)", partial, err)
			}
			if _, err := os.Lstat(out); err == nil {
				t.Errorf("%s was written", out)
			}
			if c.check != nil {
				c.check(t, partial)
			}
		})
	}
}

// TestBackfillForceOverNotAJournal: --force starts again over a regular
// file that is no journal (it is then the journal, and removed at the
// end), but never over what is not a regular file.
func TestBackfillForceOverNotAJournal(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 5, Paths: 10}, nil)
	out := filepath.Join(h.dir, "h.om")
	writePrecious(t, out+".partial")
	if code, stderr := runBounded(t, h, "--from", "2026-09-01", "--to", "2026-09-02", "--force", "--output", out); code != cli.ExitOK {
		t.Fatalf("--force over a regular file: exit %d: %s", code, stderr)
	}
	if _, err := os.Lstat(out + ".partial"); !os.IsNotExist(err) {
		t.Errorf("journal left after a complete run (%v)", err)
	}

	out = filepath.Join(h.dir, "fifo.om")
	if err := syscall.Mkfifo(out+".partial", 0o644); err != nil {
		t.Fatal(err)
	}
	h.api.Server.ResetRequests()
	if code, stderr := runBounded(t, h, "--from", "2026-09-01", "--to", "2026-09-02", "--force", "--output", out); code != cli.ExitUsage || !strings.Contains(stderr, "is not a regular file (a FIFO)") {
		t.Errorf("--force over a FIFO journal: exit %d, stderr %q", code, stderr)
	}
	if n := len(h.views()); n != 0 {
		t.Errorf("%d requests made", n)
	}
}

// TestBackfillForceOntoSpecialOutput: --force does not make a symbolic
// link or a FIFO at --output writable: refused before the first request,
// the link's target untouched, the FIFO never opened.
func TestBackfillForceOntoSpecialOutput(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 5, Paths: 10}, nil)
	link := filepath.Join(h.dir, "link.om")
	writePrecious(t, link+".target")
	if err := os.Symlink(link+".target", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(h.dir, "fifo.om")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for out, kind := range map[string]string{link: "a symbolic link", fifo: "a FIFO"} {
		h.api.Server.ResetRequests()
		code, stderr := runBounded(t, h, "--from", "2026-09-01", "--to", "2026-09-05", "--force", "--output", out)
		if want := "--output " + out + " is " + kind + ", not a regular file; refusing to replace it"; code != cli.ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("--force onto %s: exit %d, stderr %q; want 2 and %q", kind, code, stderr, want)
		}
		if n := len(h.views()); n != 0 {
			t.Errorf("--force onto %s: %d requests made before the refusal", kind, n)
		}
		if _, err := os.Lstat(out + ".partial"); !os.IsNotExist(err) {
			t.Errorf("--force onto %s: a journal was created (%v)", kind, err)
		}
	}
	checkPrecious(t, link+".target")
}

// TestBackfillJournalSwappedBeforeOpen: a journal path that changes
// between its check and its open (a link or a FIFO put there by another
// process) is refused, never followed or blocked on.
func TestBackfillJournalSwappedBeforeOpen(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 5, Paths: 10}, nil)
	t.Cleanup(func() { journalOpenHook = nil })
	for name, swap := range map[string]func(partial string) error{
		"link": func(partial string) error {
			os.Remove(partial)
			writePrecious(t, partial+".target")
			return os.Symlink(partial+".target", partial)
		},
		"FIFO": func(partial string) error {
			os.Remove(partial)
			return syscall.Mkfifo(partial, 0o644)
		},
	} {
		for _, existed := range []bool{false, true} {
			dir, err := os.MkdirTemp(h.dir, "s")
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "h.om")
			partial := out + ".partial"
			if existed {
				writePrecious(t, partial)
			}
			journalOpenHook = func() {
				if err := swap(partial); err != nil {
					t.Error(err)
				}
			}
			h.api.Server.ResetRequests()
			code, stderr := runBounded(t, h, "--from", "2026-09-01", "--to", "2026-09-02", "--force", "--output", out)
			if code != cli.ExitError || !strings.Contains(stderr, partial+" changed while it was opened") {
				t.Errorf("%s put in place of %s (existed %v): exit %d, stderr %q", name, partial, existed, code, stderr)
			}
			if n := len(h.views()); n != 0 {
				t.Errorf("%d requests made", n)
			}
			if name == "link" {
				checkPrecious(t, partial+".target")
			}
		}
	}
}

// TestBackfillJournalIsPrivate (#36 case 11): a new FILE.partial is mode
// 0600, as the output is: it holds the same numbers.
func TestBackfillJournalIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.om.partial")
	f, err := openJournalFile(path, "args", false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("a new journal has mode %#o, want 0600", perm)
	}
}

// TestJournalIsTagged: every field of a journal line has a json tag, the
// kinds' payloads included.
func TestJournalIsTagged(t *testing.T) {
	testkit.CheckJSONTags(t, journalHeader{})
	testkit.CheckJSONTags(t, journalPage{})
	for _, name := range extraCollectors {
		k, _ := collector.Lookup(name)
		testkit.CheckJSONTags(t, k.Fetched.Empty())
	}
}
