package statefiles

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

// TestShareLedger: another writer counts the exporter's requests as
// foreign, records its own beside them, keeps the other keys and writers
// as they were, and leaves a file that is not a ledger alone.
func TestShareLedger(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	state := filepath.Join(t.TempDir(), "sub", "state.json")
	l := LedgerFor(state)
	keys := Keys{}
	keys.Set("fp1", Exporter, []time.Time{now.Add(-10 * time.Minute), now.Add(-5 * time.Minute), now.Add(-2 * time.Hour)})
	keys.Set("fp2", Exporter, []time.Time{now.Add(-time.Minute)})
	if err := l.Write(now, keys); err != nil {
		t.Fatal(err)
	}
	w := budget.New(3, &fixedClock{now})
	var took []bool
	for range 2 {
		ok, err := l.Take(context.Background(), "fp1", "backfill", w, now)
		if err != nil {
			t.Fatal(err)
		}
		took = append(took, ok)
	}
	if len(took) != 2 || !took[0] || took[1] {
		t.Errorf("takes %v, want one (2 of 3 spent by the exporter in the hour)", took)
	}
	got, _, err := l.Read(now)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got["fp1"].Writers["backfill"]); n != 1 {
		t.Errorf("backfill's requests in the ledger: %d, want 1", n)
	}
	if len(got["fp1"].Writers[Exporter]) != 2 || len(got["fp2"].Writers[Exporter]) != 1 {
		t.Errorf("the exporter's entries were not kept (the hour-old one pruned): %+v", got)
	}
	if foreign := got.Foreign("fp1", Exporter); len(foreign) != 1 {
		t.Errorf("the exporter sees %d foreign requests, want the backfill's 1", len(foreign))
	}
	w2 := budget.New(3, &fixedClock{now})
	if err := l.Usage("fp1", "backfill", w2, now); err != nil {
		t.Fatal(err)
	}
	if w2.Used() != 3 {
		t.Errorf("a resumed backfill counts %d requests in the hour, want its own 1 and the exporter's 2", w2.Used())
	}

	// A file that is not a ledger is an error, and is not replaced.
	if err := os.WriteFile(l.Path(), []byte(`{"kind":"something else","version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Take(context.Background(), "fp1", "backfill", w, now); err == nil || !strings.Contains(err.Error(), "not a ledger") {
		t.Errorf("a foreign file: %v", err)
	}
	if b, _ := os.ReadFile(l.Path()); !strings.Contains(string(b), "something else") {
		t.Error("a foreign file was replaced")
	}
}

// TestFutureTimesAreClamped: request times after now (a clock set back)
// count as made now, and are not dropped.
func TestFutureTimesAreClamped(t *testing.T) {
	now := time.Date(2026, 9, 15, 12, 0, 0, 0, time.UTC)
	l := LedgerFor(filepath.Join(t.TempDir(), "state.json"))
	keys := Keys{}
	keys.Set("fp", Exporter, []time.Time{now.Add(365 * 24 * time.Hour), now.Add(-time.Minute)})
	if err := l.Write(now, keys); err != nil {
		t.Fatal(err)
	}
	got, clamped, err := l.Read(now)
	if err != nil {
		t.Fatal(err)
	}
	times := got["fp"].Writers[Exporter]
	if clamped != 1 || len(times) != 2 || !times[0].Equal(now) {
		t.Errorf("clamped %d, times %v", clamped, times)
	}
	w := budget.New(10, &fixedClock{now})
	if err := l.Usage("fp", "backfill", w, now); err != nil || w.Used() != 2 {
		t.Errorf("used %d, %v: the clamped request must still count", w.Used(), err)
	}
}

// TestNeverOpensWhatIsNotAFile: a FIFO, a symbolic link or a directory
// where the ledger or its lock goes is refused at once, never opened for
// reading (a FIFO would block) nor replaced.
func TestNeverOpensWhatIsNotAFile(t *testing.T) {
	now := time.Now()
	for _, which := range []string{"ledger", "lock"} {
		for _, what := range []string{"FIFO", "symbolic link", "directory"} {
			t.Run(which+" "+what, func(t *testing.T) {
				dir := t.TempDir()
				l := LedgerFor(filepath.Join(dir, "state.json"))
				path := l.Path()
				if which == "lock" {
					path = l.LockPath()
				}
				var err error
				switch what {
				case "FIFO":
					err = syscall.Mkfifo(path, 0o600)
				case "symbolic link":
					err = os.Symlink(filepath.Join(dir, "elsewhere"), path)
				default:
					err = os.Mkdir(path, 0o700)
				}
				if err != nil {
					t.Fatal(err)
				}
				err = update(l, now)
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), what) {
					t.Errorf("%v", err)
				}
				if fi, _ := os.Lstat(path); fi.Mode().IsRegular() {
					t.Error("replaced")
				}
			})
		}
	}
}

// TestSitesOutOfRangeAreNotRead (#36 case 7): the pages of a month walk
// the ledger records are checked as read: a negative or absurd count is
// left out, the others kept.
func TestSitesOutOfRangeAreNotRead(t *testing.T) {
	l := LedgerFor(filepath.Join(t.TempDir(), "state.json"))
	body := `{"kind":"mintlify_exporter ledger","version":1,"keys":{},"sites":{"neg":-5,"zero":0,"huge":1073741824,"ok":40}}`
	if err := os.WriteFile(l.Path(), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	sites, err := l.Sites()
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) != 1 || sites["ok"] != 40 {
		t.Errorf("Sites = %v, want only ok: 40", sites)
	}
}
