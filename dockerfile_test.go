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
	for _, c := range []struct{ what, from, to string }{
		{"running as root", "USER 65532:65532", "USER root"},
		{"without the license label", `org.opencontainers.image.licenses="Apache-2.0"`, `org.opencontainers.image.licenses="MIT"`},
		{"without LICENSE in the image", "COPY LICENSE NOTICE /", "COPY NOTICE /"},
	} {
		if !strings.Contains(string(b), c.from) {
			t.Fatalf("the Dockerfile has no %q to break", c.from)
		}
		if checkDockerfile(strings.Replace(string(b), c.from, c.to, 1)) == "" {
			t.Errorf("a Dockerfile %s passed the check", c.what)
		}
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
	case !strings.Contains(s, `org.opencontainers.image.licenses="Apache-2.0"`):
		return "the image does not carry the org.opencontainers.image.licenses=\"Apache-2.0\" label"
	case !regexp.MustCompile(`(?m)^COPY LICENSE NOTICE /`).MatchString(s):
		return "the image does not carry LICENSE and NOTICE"
	}
	for _, l := range []string{"title", "description", "source", "version", "revision", "created"} {
		if !strings.Contains(s, "org.opencontainers.image."+l+"=") {
			return "the image lacks the OCI label org.opencontainers.image." + l
		}
	}
	return ""
}
