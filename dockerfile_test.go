package main

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
)

// TestDockerfile checks the pieces of the image that matter to operators
// (e2e/image.sh builds and runs it): a base that needs no registry, the
// static stamped binary from `make build`, CA certificates, a non-root
// user with a passwd entry, the default port, the license label.
func TestDockerfile(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	df, mk, ignore := read("Dockerfile"), read("Makefile"), read(".dockerignore")
	if err := checkDockerfile(df, mk, ignore); err != "" {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, from, to string
		file           *string
	}{
		{"running as root", "USER 65532:65532", "USER root", &df},
		{"on a registry base image", "FROM scratch", "FROM debian:bookworm", &df},
		{"without the license label", `org.opencontainers.image.licenses="Apache-2.0"`, `org.opencontainers.image.licenses="MIT"`, &df},
		{"without LICENSE in the image", "COPY LICENSE NOTICE /", "COPY NOTICE /", &df},
		{"without CA certificates", "/etc/ssl/certs/ca-certificates.crt", "/tmp/ca.crt", &df},
		{"whose user has no passwd entry", "nonroot:x:$(IMAGE_UID):$(IMAGE_UID)", "nonroot:x:1000:1000", &mk},
		{"with a user other than the passwd entry's", "IMAGE_UID    := 65532", "IMAGE_UID    := 1000", &mk},
		{"with a dynamically linked binary", "CGO_ENABLED=0 $(GO) build", "$(GO) build", &mk},
		{"with a source the build context leaves out", "!.build/image/", "!.build/other/", &ignore},
	} {
		if !strings.Contains(*c.file, c.from) {
			t.Fatalf("nothing to break: %q not found", c.from)
		}
		saved := *c.file
		*c.file = strings.Replace(saved, c.from, c.to, 1)
		if checkDockerfile(df, mk, ignore) == "" {
			t.Errorf("an image %s passed the check", c.what)
		}
		*c.file = saved
	}
}

// checkDockerfile returns what is wrong with the Dockerfile, the Makefile
// that stages its build context, and the .dockerignore, or "".
func checkDockerfile(df, mk, ignore string) string {
	var froms []string
	copies := map[string][]string{} // destination → sources
	for _, line := range strings.Split(df, "\n") {
		line = strings.TrimSpace(line)
		if f, ok := strings.CutPrefix(line, "FROM "); ok {
			froms = append(froms, strings.Fields(f)[0])
		}
		if c, ok := strings.CutPrefix(line, "COPY "); ok && !strings.HasPrefix(c, "--from") {
			f := strings.Fields(c)
			copies[f[len(f)-1]] = append(copies[f[len(f)-1]], f[:len(f)-1]...)
		}
	}
	uid := regexp.MustCompile(`(?m)^USER (\d+)(:\d+)?\s*$`).FindStringSubmatch(df)
	mkUID := regexp.MustCompile(`(?m)^IMAGE_UID\s*:?=\s*(\d+)\s*$`).FindStringSubmatch(mk)
	switch {
	case len(froms) == 0 || froms[len(froms)-1] != "scratch":
		return "the runtime base is not scratch: building it would need a registry"
	case !contains(copies["/bin/mintlify_exporter"], ".build/image/mintlify_exporter"):
		return "the binary staged by make is not copied to /bin/mintlify_exporter"
	case !contains(copies["/etc/ssl/certs/ca-certificates.crt"], ".build/image/ca-certificates.crt"):
		return "no CA bundle at /etc/ssl/certs/ca-certificates.crt: https to the API would fail"
	case !contains(copies["/etc/"], ".build/image/passwd") || !contains(copies["/etc/"], ".build/image/group"):
		return "no /etc/passwd and /etc/group for the image's user"
	case !contains(copies["/"], "LICENSE") || !contains(copies["/"], "NOTICE"):
		return "the image does not carry LICENSE and NOTICE"
	case uid == nil || uid[1] == "0":
		return "runtime user is not a non-root numeric uid"
	case mkUID == nil || mkUID[1] != uid[1]:
		return "the Makefile's IMAGE_UID is not the Dockerfile's USER"
	case !strings.Contains(mk, "nonroot:x:$(IMAGE_UID):$(IMAGE_UID):"):
		return "the staged passwd has no entry for IMAGE_UID"
	case !strings.Contains(mk, "CGO_ENABLED=0 $(GO) build -trimpath"):
		return "make build does not build a static, trimmed binary"
	case !strings.Contains(mk, "-X $(PKG).Version=$(VERSION)"):
		return "make build does not stamp the version through ldflags"
	case !strings.Contains(df, "EXPOSE "+strings.TrimPrefix(serve.DefaultListenAddress, ":")):
		return "EXPOSE does not match the default listen port"
	case !strings.Contains(df, `ENTRYPOINT ["/bin/mintlify_exporter"]`):
		return "ENTRYPOINT is not the binary"
	case !strings.Contains(df, `org.opencontainers.image.licenses="Apache-2.0"`):
		return `the image does not carry the org.opencontainers.image.licenses="Apache-2.0" label`
	}
	for _, l := range []string{"title", "description", "source", "version", "revision", "created"} {
		if !strings.Contains(df, "org.opencontainers.image."+l+"=") {
			return "the image lacks the OCI label org.opencontainers.image." + l
		}
	}
	for _, srcs := range copies {
		for _, src := range srcs {
			if !dockerignoreKeeps(ignore, src) {
				return ".dockerignore leaves " + src + " out of the build context"
			}
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// dockerignoreKeeps reports whether src survives the .dockerignore's
// patterns: the last matching line wins and "!" re-includes.
func dockerignoreKeeps(ignore, src string) bool {
	keep := true
	for _, line := range strings.Split(ignore, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		neg := strings.HasPrefix(line, "!")
		pat := strings.TrimSuffix(strings.TrimPrefix(line, "!"), "/")
		// A pattern that matches a directory covers what is under it.
		parts := strings.Split(src, "/")
		for i := range parts {
			if m, _ := path.Match(pat, strings.Join(parts[:i+1], "/")); m {
				keep = neg
				break
			}
		}
	}
	return keep
}
