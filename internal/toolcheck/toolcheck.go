// Package toolcheck lets tests use external tools (promtool, kubectl,
// systemd-analyze) without a missing tool hiding anything else.
//
// Find looks a tool up. When it is missing and CI=true, the test fails:
// CI installs every tool. Elsewhere the check that needs the tool is
// recorded as skipped and the caller carries on with its other
// assertions; Wrap prints one summary line of what was skipped after the
// package's tests ran, and appends it to the file named by
// $MINTLIFY_TOOL_SKIPS, which `make test` prints at the end (go test hides
// the output of passing packages unless -v is given).
package toolcheck

import (
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// SummaryFileEnv names the environment variable holding the file that the
// summaries are appended to.
const SummaryFileEnv = "MINTLIFY_TOOL_SKIPS"

var (
	mu      sync.Mutex
	skipped = map[string]map[string]int{} // "tool why" -> what -> tests
)

// InCI reports whether the tests run in CI, where a missing tool fails.
func InCI() bool { return os.Getenv("CI") == "true" }

// Find returns the path of tool and true. If tool is not in PATH it fails
// t in CI; elsewhere it records that what (the check that needs the tool)
// was skipped, logs why, and returns false. t is not stopped either way:
// the caller returns from the tool check only.
func Find(t testing.TB, tool, install, what string) (string, bool) {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err == nil {
		return p, true
	}
	if InCI() {
		t.Errorf("%s not found; CI must install it (%s) for %s", tool, install, what)
		return "", false
	}
	Skipped(t, tool, "not installed ("+install+")", what)
	return "", false
}

// Skipped records that what was not checked because tool cannot be used
// here (why), in CI as elsewhere: use it only for reasons CI cannot fix,
// such as a tool that needs a real init system.
func Skipped(t testing.TB, tool, why, what string) {
	t.Helper()
	t.Logf("SKIPPED %s: %s %s", what, tool, why)
	mu.Lock()
	defer mu.Unlock()
	k := tool + " " + why
	if skipped[k] == nil {
		skipped[k] = map[string]int{}
	}
	skipped[k][what]++
}

// Summary is the one-line account of the skipped tool checks, or "" if
// none was skipped.
func Summary(pkg string) string {
	mu.Lock()
	defer mu.Unlock()
	if len(skipped) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(skipped)) {
		var whats []string
		for _, w := range slices.Sorted(maps.Keys(skipped[k])) {
			n := skipped[k][w]
			whats = append(whats, fmt.Sprintf("%s (%d %s)", w, n, map[bool]string{true: "test", false: "tests"}[n == 1]))
		}
		parts = append(parts, k+", so skipped: "+strings.Join(whats, ", "))
	}
	return fmt.Sprintf("%s: %s", pkg, strings.Join(parts, "; "))
}

// M is what TestMain hands to Wrap (and goleak.VerifyTestMain takes).
type M interface{ Run() int }

type wrapped struct {
	m   M
	pkg string
	out io.Writer
}

// Wrap returns m with a Run that prints the summary after the tests; pkg
// names the package in it.
func Wrap(m M, pkg string) M { return wrapped{m: m, pkg: pkg, out: os.Stdout} }

func (w wrapped) Run() int {
	rc := w.m.Run()
	if s := Summary(w.pkg); s != "" {
		fmt.Fprintln(w.out, s)
		if f := os.Getenv(SummaryFileEnv); f != "" {
			if err := appendLine(f, s); err != nil {
				fmt.Fprintf(os.Stderr, "toolcheck: %v\n", err)
			}
		}
	}
	return rc
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
