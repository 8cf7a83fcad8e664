package toolcheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeT records what Find does to a test without failing this one.
type fakeT struct {
	testing.TB
	name   string
	errors []string
	logs   []string
}

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return f.name }
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, format)
}
func (f *fakeT) Logf(format string, args ...any) { f.logs = append(f.logs, format) }

const noTool = "mintlify-no-such-tool-7f3a"

func reset() {
	mu.Lock()
	defer mu.Unlock()
	clear(skipped)
}

func TestMissingToolOutsideCIIsRecorded(t *testing.T) {
	reset()
	defer reset()
	t.Setenv("CI", "")
	ft := &fakeT{name: "TestX/sub"}
	if _, ok := Find(ft, noTool, "apt-get install nothing", "lint of /metrics"); ok {
		t.Fatal("found a tool that does not exist")
	}
	Find(&fakeT{name: "TestY"}, noTool, "apt-get install nothing", "lint of /metrics")
	if len(ft.errors) != 0 || len(ft.logs) != 1 {
		t.Fatalf("errors %q logs %q: outside CI a missing tool is logged, not failed", ft.errors, ft.logs)
	}
	want := "pkg: " + noTool + " not installed (apt-get install nothing), so skipped: lint of /metrics (2 tests)"
	if got := Summary("pkg"); got != want {
		t.Fatalf("summary\n%q, want\n%q", got, want)
	}
}

func TestMissingToolInCIFails(t *testing.T) {
	reset()
	defer reset()
	t.Setenv("CI", "true")
	ft := &fakeT{name: "TestX"}
	if _, ok := Find(ft, noTool, "apt-get install nothing", "lint"); ok {
		t.Fatal("found a tool that does not exist")
	}
	if len(ft.errors) != 1 {
		t.Fatal("a missing tool did not fail the test in CI")
	}
	if Summary("pkg") != "" {
		t.Fatal("a failure in CI was also recorded as a skip")
	}
}

func TestPresentTool(t *testing.T) {
	reset()
	defer reset()
	dir := t.TempDir()
	tool := filepath.Join(dir, noTool)
	if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	ft := &fakeT{name: "TestX"}
	if p, ok := Find(ft, noTool, "", "lint"); !ok || p != tool {
		t.Fatalf("Find = %q, %v", p, ok)
	}
	if Summary("pkg") != "" || len(ft.errors)+len(ft.logs) != 0 {
		t.Fatal("a present tool was reported")
	}
}

type runner int

func (r runner) Run() int { return int(r) }

func TestWrapPrintsAndAppendsTheSummary(t *testing.T) {
	reset()
	defer reset()
	t.Setenv("CI", "")
	file := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SummaryFileEnv, file)
	var out bytes.Buffer
	w := wrapped{m: runner(3), pkg: "pkg", out: &out}
	if rc := w.Run(); rc != 3 {
		t.Fatalf("exit code %d, want the tests' 3", rc)
	}
	if out.Len() != 0 {
		t.Fatalf("printed %q with nothing skipped", out.String())
	}
	Skipped(&fakeT{name: "TestX"}, "systemd-analyze", "does not work here", "unit verification")
	w.Run()
	want := "pkg: systemd-analyze does not work here, so skipped: unit verification (1 test)\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
	b, err := os.ReadFile(file)
	if err != nil || string(b) != want {
		t.Fatalf("summary file %q (%v)", b, err)
	}
	if !strings.HasSuffix(string(b), "\n") {
		t.Fatal("summary line not terminated")
	}
}
