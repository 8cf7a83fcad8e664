//go:build unix

package backfill

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

const signalHelperEnv = "BACKFILL_SIGNAL_HELPER_ARGS"

// TestBackfillSignalHelper is the backfill process of
// TestBackfillSIGTERMEndsIt; it does nothing in a normal run.
func TestBackfillSignalHelper(t *testing.T) {
	raw := os.Getenv(signalHelperEnv)
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(Run(args, os.Stdout, os.Stderr))
}

// TestBackfillSIGTERMEndsIt: a backfill that waits on something another
// process holds (here the ledger's lock, before its first request) is
// ended by SIGTERM: the first one ends the run, or, if it cannot notice,
// the signal's default action is back for the next one. The test sends
// SIGTERM until the process ends; the verdict is that it ends, within the
// test's own bound, whatever the machine's speed.
func TestBackfillSIGTERMEndsIt(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	lock, err := os.OpenFile(state+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal([]string{"--mintlify.api-url", "http://127.0.0.1:9", "--mintlify.project-id", "proj",
		"--from", time.Now().UTC().AddDate(0, 0, -2).Format("2006-01-02"), "--storage.path", state, "--output", filepath.Join(dir, "h.om")})
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackfillSignalHelper$")
	cmd.Env = append(os.Environ(), signalHelperEnv+"="+string(args), "MINTLIFY_API_KEY="+backfillTestKey)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	waiting := make(chan struct{})
	go func() {
		// The line said just before the first request: the run then
		// waits for the ledger's lock.
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "no exporter uses "+state) {
				said = true
				close(waiting)
			}
		}
		ended <- cmd.Wait()
	}()
	guard := testkit.HangGuard(t)
	select {
	case <-waiting:
	case err := <-ended:
		t.Fatalf("the backfill ended before it waited for the lock: %v", err)
	case <-guard.Done():
		cmd.Process.Kill()
		t.Fatal("the backfill never reached its first request")
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	sent := 0
	for {
		if err := cmd.Process.Signal(syscall.SIGTERM); err == nil {
			sent++
		}
		select {
		case err := <-ended:
			t.Logf("ended after %d SIGTERM(s): %v", sent, err)
			return
		case <-guard.Done():
			cmd.Process.Kill()
			t.Fatalf("%d SIGTERMs did not end the backfill", sent)
		case <-tick.C:
		}
	}
}
