package backfill

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestBackfillSaysWhetherTheBudgetIsShared: with a --storage.path no
// exporter uses, the run does not claim to share the budget with one, in
// its first run or in a second one that finds only the first run's
// entries in the ledger; it says where it records its requests. (Beside
// a running exporter, TestBackfillSharesBudgetWithExporter sees the claim.)
func TestBackfillSaysWhetherTheBudgetIsShared(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 5, Paths: 10}, nil)
	for i, days := range [][2]string{{"2026-09-01", "2026-09-02"}, {"2026-09-03", "2026-09-04"}} {
		out := filepath.Join(h.dir, days[0]+".om")
		code, stderr := h.run(context.Background(), nil, "--from", days[0], "--to", days[1], "--output", out)
		if code != backfillExitOK {
			t.Fatalf("run %d: exit %d: %s", i+1, code, stderr)
		}
		if strings.Contains(stderr, "sharing the budget with the exporter") {
			t.Errorf("run %d claims to share the budget with an exporter that does not exist:\n%s", i+1, stderr)
		}
		if want := "no exporter uses " + h.statePath() + " "; !strings.Contains(stderr, want) || !strings.Contains(stderr, "records its requests in "+h.statePath()+".ledger") {
			t.Errorf("run %d: stderr lacks %q and where the requests are recorded:\n%s", i+1, want, stderr)
		}
	}
}
