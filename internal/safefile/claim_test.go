//go:build linux

package safefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestClaimNamesTheHolder: a second Claim is refused with the first's pid,
// also once the owner file is deleted, and from the lock's holder when the
// owner file names none (an older version's); once released, Claim succeeds.
func TestClaimNamesTheHolder(t *testing.T) {
	owner := filepath.Join(t.TempDir(), "state.json.owner")
	first, err := safefile.Claim(owner)
	if err != nil {
		t.Fatal(err)
	}
	claimErr := func(what string) *safefile.ClaimError {
		t.Helper()
		f, err := safefile.Claim(owner)
		var held *safefile.ClaimError
		if !errors.As(err, &held) || held.PID != os.Getpid() || held.Path != owner {
			if f != nil {
				f.Close()
			}
			t.Fatalf("%s: Claim = %v, want a ClaimError naming process %d", what, err, os.Getpid())
		}
		return held
	}
	if held := claimErr("held"); held.Deleted {
		t.Error("held: Deleted is true while the owner file is there")
	}
	if err := os.Remove(owner); err != nil {
		t.Fatal(err)
	}
	if held := claimErr("owner file deleted"); !held.Deleted {
		t.Error("owner file deleted: Deleted is false")
	}
	first.Close()
	if err := os.Remove(owner); err != nil {
		t.Fatal(err)
	}
	release := testkit.HoldLock(t, owner)
	claimErr("an owner file naming no pid")
	release()
	again, err := safefile.Claim(owner)
	if err != nil {
		t.Fatalf("Claim once released: %v", err)
	}
	again.Close()
}
