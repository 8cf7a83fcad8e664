package statefiles

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLedgerOf010IsRead (#38 case 2): the ledger 0.1.0 wrote
// (testdata/v0.1.0, never regenerated) is read as it is: the demo key's
// requests by writer, the walk sizes; an update keeps them, in the
// version this code writes.
func TestLedgerOf010IsRead(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "v0.1.0", "state.json.ledger"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Version int       `json:"version"`
		Saved   time.Time `json:"saved"`
		Keys    map[string]struct {
			Writers map[string][]time.Time `json:"writers"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Version != ledgerVersion {
		t.Fatalf("0.1.0 wrote version %d, this code writes %d: a format change needs a migration and this test reading the 0.1.0 file through it", raw.Version, ledgerVersion)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path+".ledger", b, 0o600); err != nil {
		t.Fatal(err)
	}
	fp := Fingerprint("mint_demo_public_key")
	want := raw.Keys[fp].Writers
	if len(want[Exporter]) == 0 || len(want["backfill"]) == 0 {
		t.Fatalf("the fixture holds %v for the demo key, want both writers' requests", want)
	}
	now := raw.Saved.Add(time.Minute)
	l := LedgerFor(path)
	check := func(when string) {
		t.Helper()
		keys, clamped, err := l.Read(now)
		if err != nil || clamped != 0 {
			t.Fatalf("%s: %v (%d clamped)", when, err, clamped)
		}
		for w, times := range want {
			if len(keys[fp].Writers[w]) != len(times) {
				t.Errorf("%s: %d requests of %s, the file holds %d", when, len(keys[fp].Writers[w]), w, len(times))
			}
		}
		if f := keys.Foreign(fp, Exporter); len(f) != len(want["backfill"]) {
			t.Errorf("%s: the exporter counts %d foreign requests, want the backfill's %d", when, len(f), len(want["backfill"]))
		}
		if sites, err := l.Sites(); err != nil || sites["demo-blog"] < 1 {
			t.Errorf("%s: walk sizes %v, %v; want demo-blog's", when, sites, err)
		}
	}
	check("as 0.1.0 wrote it")
	tx, err := l.Begin(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	check("rewritten")
}
