//go:build unix

package testkit

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// Nobody is the unprivileged user and group AsUser runs tests as.
const Nobody = 65534

// asUserEnv names the test a copy of the test binary runs as another user.
const asUserEnv = "MINTLIFY_TEST_AS_USER"

// AsUser runs the calling top-level test again, in a copy of the test
// binary started as uid:gid with env added, for the checks that only mean
// something as an unprivileged operator (a directory it cannot write, a
// file of another user). In that copy it returns true: the caller then
// runs those checks. In the test itself it returns false once the copy
// passed, and fails with the copy's output when it did not. Starting a
// process as another user needs root: elsewhere the test is skipped, and
// fails where CI=true (CI runs as root).
func AsUser(t *testing.T, uid, gid int, env ...string) bool {
	t.Helper()
	if os.Getenv(asUserEnv) == t.Name() {
		return true
	}
	if os.Geteuid() != 0 {
		if toolcheck.InCI() {
			t.Fatalf("running as uid %d needs root, which CI has", uid)
		}
		t.Skipf("running as uid %d needs root", uid)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A copy the user may run: the build's own directory is root's alone.
	dir, err := os.MkdirTemp("", "asuser")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, filepath.Base(self))
	if err := copyExecutable(self, bin); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	if d, ok := t.Deadline(); ok {
		cmd.Args = append(cmd.Args, "-test.timeout="+time.Until(d).String())
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), asUserEnv+"="+t.Name(), "HOME="+dir)
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid %d: %v\n%s", uid, err, out)
	}
	if !regexp.MustCompile(`(?m)^--- PASS: ` + regexp.QuoteMeta(t.Name()) + ` `).Match(out) {
		t.Fatalf("as uid %d, the test did not run:\n%s", uid, out)
	}
	return false
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
