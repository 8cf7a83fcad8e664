package statefiles

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testLog(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, nil))
}

// TestSecondOpenIsRefused: while one exporter holds the files of a path,
// a second Open is refused with a message naming the first; after Close,
// another may open them.
func TestSecondOpenIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	var logs bytes.Buffer
	first, err := Open(path, testLog(&logs))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(path, testLog(&logs))
	if err == nil || !strings.Contains(err.Error(), "in use by another exporter") || !strings.Contains(err.Error(), "process ") {
		t.Fatalf("second Open: %v, want a refusal naming the first process", err)
	}
	first.Close()
	again, err := Open(path, testLog(&logs))
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	again.Close()
}

// TestDataRoundTrip: no data cache is fs.ErrNotExist; what WriteData
// wrote, ReadData reads, and the write returns no error.
func TestDataRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f, err := Open(path, testLog(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadData(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadData with no file: %v, want fs.ErrNotExist", err)
	}
	if err := f.WriteData(map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	b, err := f.ReadData()
	if err != nil || string(b) != "{\"a\":1}\n" {
		t.Fatalf("ReadData = %q, %v", b, err)
	}
}

// TestNoteLogsChanges: failures are logged only when
// they change; the first success after them is logged once; DataFailing
// follows the last outcome.
func TestNoteLogsChanges(t *testing.T) {
	var logs bytes.Buffer
	f := &Files{log: testLog(&logs), errs: map[string]string{}}
	boom := errors.New("disk full")
	f.note(DataFile, "p", boom)
	f.note(DataFile, "p", boom)
	if !f.DataFailing() {
		t.Error("DataFailing is false after a failed write")
	}
	f.note(DataFile, "p", errors.New("read-only"))
	f.note(DataFile, "p", nil)
	f.note(DataFile, "p", nil)
	if f.DataFailing() {
		t.Error("DataFailing is true after a successful write")
	}
	out := logs.String()
	if c := strings.Count(out, "writing the state file failed"); c != 2 {
		t.Errorf("%d failure warnings, want 2 (one per different error):\n%s", c, out)
	}
	if c := strings.Count(out, "the state file is written again"); c != 1 {
		t.Errorf("%d recovery lines, want 1:\n%s", c, out)
	}
}

// TestReadLedgerClamps: the exporter's requests are its own, the other
// writers' foreign; a back-off past maxPause ends at it and is counted.
// (TestReadLedgerMigratesAndClamps before the version 1 migration went,
// #38 case 2.)
func TestReadLedgerClamps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f, err := Open(path, testLog(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	own, other := now.Add(-time.Minute), now.Add(-2*time.Minute)
	lk := Keys{}
	lk.Set("fp", Exporter, []time.Time{own})
	lk.Set("fp", "backfill", []time.Time{other})
	e := lk["fp"]
	e.PausedUntil = now.Add(48 * time.Hour)
	lk["fp"] = e
	if err := LedgerFor(path).Write(now, lk); err != nil {
		t.Fatal(err)
	}
	keys, clamped := f.ReadLedger(now, time.Hour)
	k := keys["fp"]
	if len(k.Own) != 1 || !k.Own[0].Equal(own) || len(k.Foreign) != 1 || !k.Foreign[0].Equal(other) {
		t.Errorf("key = %+v, want own [%v] and foreign [%v]", k, own, other)
	}
	if !k.PausedUntil.Equal(now.Add(time.Hour)) || clamped != 1 {
		t.Errorf("paused until %v (%d clamped), want %v (1)", k.PausedUntil, clamped, now.Add(time.Hour))
	}
}
