//go:build linux

package statefiles

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestUnreadableLedgerIsReplaced: a ledger its writer may not read (root's,
// mode 0600, in the writer's own directory) is moved aside and replaced
// like a corrupt one, rather than failing every save.
func TestUnreadableLedgerIsReplaced(t *testing.T) {
	const dirEnv = "MINTLIFY_TEST_LEDGER_DIR"
	if !testkit.AsUser(t, testkit.Nobody, testkit.Nobody, dirEnv+"="+dirWithRootsLedger(t)) {
		return
	}
	l := LedgerFor(filepath.Join(os.Getenv(dirEnv), "state.json"))
	if err := update(l, time.Now()); err != nil {
		t.Fatalf("update: %v", err)
	}
	told := l.TakeReplaced()
	if len(told) != 1 || !errors.Is(told[0].Err, fs.ErrPermission) {
		t.Fatalf("replacements: %+v, want one for a permission error", told)
	}
	if _, _, err := l.Read(time.Now()); err != nil {
		t.Errorf("the fresh ledger: %v", err)
	}
}

// dirWithRootsLedger is a directory of the user nobody holding a ledger
// of root's that only root may read.
func dirWithRootsLedger(t *testing.T) string {
	if os.Getenv("MINTLIFY_TEST_AS_USER") != "" || os.Geteuid() != 0 {
		return "" // the copy run as nobody, or no root: AsUser skips
	}
	dir, err := os.MkdirTemp("", "ledger")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "state.json.ledger"), []byte(`{"kind":"mintlify_exporter ledger","version":1,"keys":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, testkit.Nobody, testkit.Nobody); err != nil {
		t.Fatal(err)
	}
	return dir
}
