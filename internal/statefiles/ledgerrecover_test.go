package statefiles

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// TestBadLedgerIsReplaced: a corrupt or oversized ledger is moved aside
// once, a fresh one is written, and for the hour after, every key's
// budget counts as spent, for the exporter and the backfill alike; then
// it frees up.
func TestBadLedgerIsReplaced(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	for name, content := range map[string][]byte{
		"corrupt":   []byte("garbage{"),
		"oversized": []byte(`{"kind":"mintlify_exporter ledger","version":1,"keys":{}}` + strings.Repeat(" ", MaxLedgerBytes)),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := LedgerFor(filepath.Join(dir, "state.json"))
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
			took, err := l.Take(context.Background(), "fp", "backfill", w, now)
			if err != nil || took {
				t.Errorf("Take: took %v, %v; want no request and no error", took, err)
			}
			told := l.TakeReplaced()
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
			if took, err := l.Take(context.Background(), "fp", "backfill", w, later); err != nil || !took {
				t.Errorf("an hour on: took %v, %v; want the budget back", took, err)
			}
			if more := l.TakeReplaced(); len(more) != 0 {
				t.Errorf("%d more replacements, want none", len(more))
			}
		})
	}
}

// TestForeignLedgerIsLeftAlone: a file of another program where the
// ledger goes is neither moved nor replaced (TestShareLedger covers the
// write); a version this program does not read is left alone too.
func TestForeignLedgerIsLeftAlone(t *testing.T) {
	l := LedgerFor(filepath.Join(t.TempDir(), "state.json"))
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
// safefile.KeepAside newest are kept.
func TestCorruptLedgersKeptAreBounded(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	l := LedgerFor(filepath.Join(t.TempDir(), "state.json"))
	for i := range safefile.KeepAside + 3 {
		if err := os.WriteFile(l.Path(), []byte("garbage{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := update(l, now.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	matches, _ := filepath.Glob(l.Path() + ".corrupt-*")
	if len(matches) != safefile.KeepAside {
		t.Fatalf("%d kept, want %d: %v", len(matches), safefile.KeepAside, matches)
	}
	if !strings.HasSuffix(matches[len(matches)-1], "T120500.000Z") {
		t.Errorf("the newest was not kept: %v", matches)
	}
}

// TestDeclinedUpdateIsNotAWrite: an update aborted writes nothing and
// lets the lock go; one committed writes the ledger.
func TestDeclinedUpdateIsNotAWrite(t *testing.T) {
	l := LedgerFor(filepath.Join(t.TempDir(), "state.json"))
	tx, err := l.Begin(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tx.Abort()
	if _, err := os.Lstat(l.Path()); !os.IsNotExist(err) {
		t.Errorf("a ledger was written: %v", err)
	}
	if err := tx.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	if err := update(l, time.Now()); err != nil {
		t.Errorf("accepted: %v", err)
	}
	if _, err := os.Lstat(l.Path()); err != nil {
		t.Errorf("no ledger written: %v", err)
	}
}

// update is an update of l that changes nothing and writes it.
func update(l *Ledger, now time.Time) error {
	tx, err := l.Begin(context.Background(), now)
	if err != nil {
		return err
	}
	return tx.Commit()
}
