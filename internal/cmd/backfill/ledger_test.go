package backfill

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestBackfillReplacesACorruptLedger: a corrupt ledger shared through
// --storage.path does not stop the backfill: it is moved aside, a fresh
// one written, the run says so, and, the key's hour counting as spent,
// its first request waits for that hour to end.
func TestBackfillReplacesACorruptLedger(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 1, Paths: 20}, nil)
	ledgerPath := h.statePath() + ".ledger"
	if err := os.MkdirAll(filepath.Dir(ledgerPath), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ledgerPath, []byte("garbage{"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "h.om")
	code, stderr := h.run(context.Background(), nil, "--from", "2026-09-10", "--to", "2026-09-11", "--yes", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "moved aside") || !strings.Contains(stderr, "counts as spent until") {
		t.Errorf("the run does not say the ledger was replaced:\n%s", stderr)
	}
	if aside, _ := filepath.Glob(ledgerPath + ".corrupt-*"); len(aside) != 1 {
		t.Errorf("moved aside: %v, want one file", aside)
	}
	reqs := h.views()
	if len(reqs) == 0 {
		t.Fatal("no request made")
	}
	if first := reqs[0].Time; first.Before(backfillNow.Add(time.Hour)) {
		t.Errorf("first request at %s, within the hour the lost ledger may have spent (until %s)", first, backfillNow.Add(time.Hour))
	}
}
