// Package testkit holds the helpers the command packages' tests share: the
// simulated API started for a test, a guard against hangs at the test
// binary's own deadline, a buffer safe for concurrent writers. Only test
// files import it (the architecture test checks this).
package testkit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// LockedBuffer is a bytes.Buffer safe for concurrent writers (a logger
// and the test reading it).
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// HangGuard ends shortly before the test binary's own -timeout would
// stop it. A wait for an event (a process ready, a series scraped) also
// selects on it, so that a hang fails with the test's own message, and
// no bound shorter than the whole run's can turn a slow machine into a
// failure. Without a -timeout it never ends.
func HangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := t.Deadline(); ok {
		margin := min(time.Until(d)/10, 10*time.Second) // room to report and clean up
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-margin))
	}
	t.Cleanup(cancel)
	return ctx
}

// StartAPI starts the simulated API with o and closes it when the test
// (or benchmark) ends.
func StartAPI(tb testing.TB, o mockapi.Options) *mockapi.Running {
	tb.Helper()
	api, err := mockapi.Start(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = api.Close() })
	return api
}

// RepoRoot is the repository's top directory: the nearest directory above
// the test's working directory that holds go.mod.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// CheckFlagsDocumented checks that docs/doc has a table row for every
// visible flag of app (a cell "`--name`" or "`--[no-]name`" opening the
// row) and none for a flag app does not have.
func CheckFlagsDocumented(t *testing.T, doc string, app *kingpin.Application, what string, elsewhere ...string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(RepoRoot(t), "docs", doc))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `--(?:\\[no-\\])?([a-z0-9.-]+)` \\|")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		documented[m[1]] = true
	}
	defined := map[string]bool{}
	for _, f := range app.Model().Flags {
		if f.Hidden || f.Name == "help" || f.Name == "version" || strings.HasPrefix(f.Name, "help-") || strings.HasPrefix(f.Name, "completion-") ||
			slices.ContainsFunc(elsewhere, func(prefix string) bool { return strings.HasPrefix(f.Name, prefix) }) {
			continue
		}
		defined[f.Name] = true
		if !documented[f.Name] {
			t.Errorf("docs/%s has no row for --%s", doc, f.Name)
		}
	}
	if len(defined) < 10 {
		t.Fatalf("only %d flags found for %s", len(defined), what)
	}
	for name := range documented {
		if !defined[name] {
			t.Errorf("docs/%s documents --%s, which %s does not have", doc, name, what)
		}
	}
}
