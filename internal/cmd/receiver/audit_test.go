//go:build unix

package receiver

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestAuditLogRefusesLinksAndFIFOs (#46 case 7): an audit log that is a
// symbolic link (to a file root alone may write, say) or a FIFO is
// refused at start (and by a rotation, which opens the file the same
// way), naming it, and the link's target is left as it was.
func TestAuditLogRefusesLinksAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "shadow")
	if err := os.WriteFile(target, []byte("root:secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "audit.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{link: "a symbolic link", fifo: "a FIFO"} {
		done := make(chan error, 1)
		go func() {
			a, err := openAudit(path, 4096, 1)
			if err == nil {
				err = a.write(&auditRecord{Route: "r", Outcome: OutcomeDryRun})
				a.close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "audit log") || !strings.Contains(err.Error(), path+" is not a regular file ("+kind+")") {
				t.Errorf("openAudit(%s) = %v, want a refusal naming it and %s", path, err, kind)
			}
		case <-testkit.HangGuard(t).Done(): // only an open that blocks waits, until the test's deadline
			t.Fatalf("openAudit(%s) blocked", path)
		}
	}

	if b, _ := os.ReadFile(target); string(b) != "root:secret\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}
