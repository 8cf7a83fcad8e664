package ledger

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/atomicfile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
)

// TestBadLedgerIsReplaced: a corrupt or oversized ledger is moved aside
// once, a fresh one is written, and for the hour after, every key's
// budget counts as spent, for the exporter and the backfill alike; then
// it frees up.
func TestBadLedgerIsReplaced(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	for name, content := range map[string][]byte{
		"corrupt":   []byte("garbage{"),
		"oversized": []byte(`{"kind":"mintlify_exporter ledger","version":1,"keys":{}}` + strings.Repeat(" ", MaxBytes)),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := For(filepath.Join(dir, "state.json"))
			var told []Replaced
			l.OnReplaced = func(r Replaced) { told = append(told, r) }
			if err := os.WriteFile(l.Path(), content, 0o600); err != nil {
				t.Fatal(err)
			}
			// The backfill's first look at the budget, then its first request.
			clock := &fixedClock{now}
			w := budget.New(100, clock)
			if err := l.Usage("fp", "backfill", w, now); err != nil {
				t.Fatalf("Usage on a %s ledger: %v", name, err)
			}
			if w.Available() != 0 {
				t.Errorf("%d requests available the hour a ledger was lost, want none", w.Available())
			}
			took := true
			if err := l.Share("fp", "backfill", w, now, func() { took = w.TryTake() }); err != nil || took {
				t.Errorf("Share: took %v, %v; want no request and no error", took, err)
			}
			if len(told) != 1 || told[0].Err == nil || !told[0].Until.Equal(now.Add(time.Hour)) {
				t.Fatalf("replacements told: %+v, want one, until an hour on", told)
			}
			aside, err := os.ReadFile(told[0].Aside)
			if err != nil || string(aside) != string(content) {
				t.Errorf("the bad ledger was not kept aside as it was: %v", err)
			}
			if !strings.HasPrefix(filepath.Base(told[0].Aside), "state.json.ledger.corrupt-") {
				t.Errorf("moved aside to %s", told[0].Aside)
			}
			keys, _, err := l.Read(now)
			if err != nil || keys == nil {
				t.Fatalf("the fresh ledger: %v, %v", keys, err)
			}
			later := now.Add(time.Hour + time.Second)
			clock.t = later
			if err := l.Share("fp", "backfill", w, later, func() { took = w.TryTake() }); err != nil || !took {
				t.Errorf("an hour on: took %v, %v; want the budget back", took, err)
			}
			if len(told) != 1 {
				t.Errorf("%d replacements, want one", len(told))
			}
		})
	}
}

// TestForeignLedgerIsLeftAlone: a file of another program where the
// ledger goes is neither moved nor replaced (TestShareLedger covers the
// write); a version this program does not read is left alone too.
func TestForeignLedgerIsLeftAlone(t *testing.T) {
	l := For(filepath.Join(t.TempDir(), "state.json"))
	if err := os.WriteFile(l.Path(), []byte(`{"kind":"mintlify_exporter ledger","version":99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Read(time.Now()); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("Read: %v", err)
	}
	if matches, _ := filepath.Glob(l.Path() + ".corrupt-*"); len(matches) != 0 {
		t.Errorf("moved aside: %v", matches)
	}
}

// TestCorruptLedgersKeptAreBounded: of the ledgers moved aside, the
// atomicfile.KeepAside newest are kept.
func TestCorruptLedgersKeptAreBounded(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	l := For(filepath.Join(t.TempDir(), "state.json"))
	for i := range atomicfile.KeepAside + 3 {
		if err := os.WriteFile(l.Path(), []byte("garbage{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := l.Update(now.Add(time.Duration(i)*time.Minute), func(Keys) bool { return true }); err != nil {
			t.Fatal(err)
		}
	}
	matches, _ := filepath.Glob(l.Path() + ".corrupt-*")
	if len(matches) != atomicfile.KeepAside {
		t.Fatalf("%d kept, want %d: %v", len(matches), atomicfile.KeepAside, matches)
	}
	if !strings.HasSuffix(matches[len(matches)-1], "T120500.000Z") {
		t.Errorf("the newest was not kept: %v", matches)
	}
}

// TestDeclinedUpdateIsNotAWrite: UpdateContext reports no write when its
// callback declines, and writes nothing.
func TestDeclinedUpdateIsNotAWrite(t *testing.T) {
	l := For(filepath.Join(t.TempDir(), "state.json"))
	written, err := l.UpdateContext(context.Background(), time.Now(), func(Keys) bool { return false })
	if err != nil || written {
		t.Errorf("declined: written %v, %v", written, err)
	}
	if _, err := os.Lstat(l.Path()); !os.IsNotExist(err) {
		t.Errorf("a ledger was written: %v", err)
	}
	if written, err := l.UpdateContext(context.Background(), time.Now(), func(Keys) bool { return true }); err != nil || !written {
		t.Errorf("accepted: written %v, %v", written, err)
	}
}
