//go:build linux

package serve

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// startExporterProcess runs the built exporter on a free port with its
// state at state, once it listens.
func startExporterProcess(t *testing.T, bin, apiURL, state string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "--web.listen-address=127.0.0.1:0", "--mintlify.project-id=proj-docs",
		"--mintlify.api-url="+apiURL, "--storage.path="+state, "--log.level=info")
	cmd.Env = append(os.Environ(), "MINTLIFY_API_KEY="+mainTestKey)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listenAddress(t, stderr)
	return cmd
}

// TestStateLocksThroughTheBinary runs the built exporter (built once) in
// the two cases below.
func TestStateLocksThroughTheBinary(t *testing.T) {
	bin := buildBinary(t)
	t.Run("SIGTERM while STATE.lock is held", func(t *testing.T) { sigtermWhileLedgerLockHeld(t, bin) })
	t.Run("deleted STATE.owner", func(t *testing.T) { deletedOwnerFileRefused(t, bin) })
}

// sigtermWhileLedgerLockHeld: with STATE.lock held by another open file
// description (as `flock STATE.lock sleep 300` would), the exporter's
// first refresh waits for the lock; SIGTERM still ends the process, with
// status 0.
func sigtermWhileLedgerLockHeld(t *testing.T, bin string) {
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	state := filepath.Join(t.TempDir(), "state.json")
	lock, err := os.OpenFile(state+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	cmd := startExporterProcess(t, bin, api.URL(), state)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
		t.Logf("ended %v after SIGTERM", time.Since(sent))
	case <-testkit.HangGuard(t).Done():
		t.Fatal("SIGTERM did not end the exporter while STATE.lock was held")
	}
}

// deletedOwnerFileRefused: deleting STATE.owner while an
// exporter runs does not let a second exporter start on the same state
// file: it exits with status 1, naming the first's process.
func deletedOwnerFileRefused(t *testing.T, bin string) {
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	state := filepath.Join(t.TempDir(), "state.json")
	first := startExporterProcess(t, bin, api.URL(), state)
	if err := os.Remove(state + ".owner"); err != nil {
		t.Fatal(err)
	}
	second := exec.CommandContext(testkit.HangGuard(t), bin, "--web.listen-address=127.0.0.1:0", "--mintlify.project-id=proj-docs",
		"--mintlify.api-url="+api.URL(), "--storage.path="+state)
	second.Env = append(os.Environ(), "MINTLIFY_API_KEY="+mainTestKey)
	var stderr bytes.Buffer
	second.Stderr = &stderr
	err := second.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("second exporter: %v; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "in use by another exporter") || !strings.Contains(stderr.String(), "process "+strconv.Itoa(first.Process.Pid)) {
		t.Errorf("the refusal does not name the first exporter (process %d):\n%s", first.Process.Pid, stderr.String())
	}
}
