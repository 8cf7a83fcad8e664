package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfile checks the pieces of the image that matter to operators,
// since no Docker engine runs in CI to build it: a pinned multi-stage
// build, a static stamped binary, a non-root runtime on the default port.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkDockerfile(string(b)); err != "" {
		t.Fatal(err)
	}
	broken := strings.Replace(string(b), "USER 65532:65532", "USER root", 1)
	if checkDockerfile(broken) == "" {
		t.Fatal("a Dockerfile running as root passed the check")
	}
}

func checkDockerfile(s string) string {
	var froms []string
	for _, line := range strings.Split(s, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "FROM "); ok {
			froms = append(froms, strings.Fields(f)[0])
		}
	}
	switch {
	case len(froms) < 2:
		return "not a multi-stage build"
	case !regexp.MustCompile(`^golang:\d+\.\d+\.\d+`).MatchString(froms[0]):
		return "builder image " + froms[0] + " is not pinned to a Go release"
	case strings.Contains(froms[len(froms)-1], ":latest") || !strings.Contains(froms[len(froms)-1], ":"):
		return "runtime image " + froms[len(froms)-1] + " is not pinned"
	case !strings.Contains(s, "CGO_ENABLED=0") || !strings.Contains(s, "-trimpath"):
		return "binary is not static and trimmed"
	case !strings.Contains(s, "prometheus/common/version.Version=${VERSION}"):
		return "version is not stamped through ldflags"
	case !regexp.MustCompile(`(?m)^USER (\d+)`).MatchString(s) || regexp.MustCompile(`(?m)^USER (0|root)\b`).MatchString(s):
		return "runtime user is not a non-root uid"
	case !strings.Contains(s, "EXPOSE "+strings.TrimPrefix(defaultListenAddress, ":")):
		return "EXPOSE does not match the default listen port"
	case !strings.Contains(s, `ENTRYPOINT ["/bin/mintlify_exporter"]`):
		return "ENTRYPOINT is not the binary"
	case !strings.Contains(froms[len(froms)-1], "distroless/static"):
		return "runtime image may lack CA certificates (expected distroless/static)"
	}
	return ""
}
