package backfill

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestBackfillRefusesJournalOfVersion1 (#38 case 2): a progress file of
// version 1, which only development builds before 0.1.0 wrote, is
// refused, not migrated: the message says what wrote it and what to do,
// the file is left as it was and no request is made; --force starts
// afresh. (It replaces TestBackfillResumesJournalOfVersion1, whose
// migration went.)
func TestBackfillRefusesJournalOfVersion1(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 14, Paths: 40}, nil)
	out := filepath.Join(h.dir, "out.om")
	args := []string{"--from", "2026-08-30", "--to", "2026-09-02", "--collector.feedback", "--output", out}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if code, stderr := h.run(ctx, func(n int) {
		if n == 2 {
			cancel()
		}
	}, args...); code != cli.ExitError {
		t.Fatalf("interrupted: exit %d: %s", code, stderr)
	}
	partial := out + ".partial"
	b, err := os.ReadFile(partial)
	if err != nil {
		t.Fatal(err)
	}
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	var head journalHeader
	if err := json.Unmarshal(first, &head); err != nil {
		t.Fatal(err)
	}
	v1, _ := json.Marshal(journalHeader{Version: 1, Args: head.Args})
	old := append(append(v1, '\n'), rest...)
	if err := os.WriteFile(partial, old, 0o600); err != nil {
		t.Fatal(err)
	}
	h.api.Server.ResetRequests()
	code, stderr := h.run(context.Background(), nil, args...)
	if code != cli.ExitUsage || !strings.Contains(stderr, "development build before 0.1.0") || !strings.Contains(stderr, "delete it") {
		t.Fatalf("a version 1 progress file: exit %d: %s", code, stderr)
	}
	if n := len(h.api.Server.Requests()); n != 0 {
		t.Errorf("%d requests made before the refusal", n)
	}
	if kept, _ := os.ReadFile(partial); !bytes.Equal(kept, old) {
		t.Error("the refused progress file was changed")
	}
	if code, stderr := h.run(context.Background(), nil, append(args, "--force")...); code != 0 {
		t.Fatalf("with --force: exit %d: %s", code, stderr)
	}
}
