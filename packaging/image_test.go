package packaging_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseImageNeedsEveryArch: make release-image after a release of
// amd64 alone stops before building anything, naming the missing binary.
func TestReleaseImageNeedsEveryArch(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "linux-amd64", "mintlify_exporter")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "image.sh")
	cmd.Env = append(os.Environ(), "RELEASE_DIR="+dir, "RELEASE_IMAGE=example/x:v0", "VERSION=0")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no "+filepath.Join(dir, "bin", "linux-arm64", "mintlify_exporter")) {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "image")); !os.IsNotExist(err) {
		t.Errorf("an image context was staged before the check: %v", err)
	}
}
