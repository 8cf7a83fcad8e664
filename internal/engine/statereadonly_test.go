//go:build linux

package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestReadOnlyDirectoryIsNoFalseRecovery: an exporter running as an
// unprivileged user whose state directory it cannot write (its lock and
// owner files there, made beforehand) logs the failed ledger save once
// and never says the ledger is written again: a refresh with nothing to
// record writes nothing, which is no success.
func TestReadOnlyDirectoryIsNoFalseRecovery(t *testing.T) {
	const dirEnv = "MINTLIFY_TEST_STATE_DIR"
	if !testkit.AsUser(t, testkit.Nobody, testkit.Nobody, dirEnv+"="+readOnlyStateDir(t)) {
		return
	}
	state := filepath.Join(os.Getenv(dirEnv), "state.json")
	logs := &testkit.LockedBuffer{}
	saves := &saveOutcomes{}
	e := newTestEngine(t, docsConfig("  min_refresh_interval: 1m\n  max_refresh_interval: 2m\n", ""),
		mockapi.Options{Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}}},
		Options{StoragePath: state, Logger: bufLogger(logs), OnSave: saves.observe})
	for range 4 {
		e.refresh()
		e.clock.Advance(90 * time.Second)
	}
	if failed, _ := saves.counts("ledger"); failed < 1 {
		t.Errorf("%v failed ledger saves told", failed)
	}
	if n := strings.Count(logs.String(), "writing the ledger file failed"); n != 1 {
		t.Errorf("%d warnings about the ledger, want 1:\n%s", n, logs)
	}
	if strings.Contains(logs.String(), "is written again") {
		t.Errorf("a save that wrote nothing was taken for a recovery:\n%s", logs)
	}
}

// readOnlyStateDir is a directory of root's that the user nobody may read
// but not write, holding the state's lock and owner files, which nobody
// owns (as an earlier run would have left them).
func readOnlyStateDir(t *testing.T) string {
	if os.Getenv("MINTLIFY_TEST_AS_USER") != "" || os.Geteuid() != 0 {
		return "" // the copy run as nobody, or no root: AsUser skips
	}
	dir, err := os.MkdirTemp("", "readonly")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, name := range []string{"state.json.lock", "state.json.owner"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, testkit.Nobody, testkit.Nobody); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
