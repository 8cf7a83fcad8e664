package main

import (
	"os"
	"path"
	"regexp"
	"slices"
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
		{"without a state volume", `VOLUME ["/var/lib/mintlify_exporter"]`, "", &df},
		{"whose state directory the user cannot write", "COPY --chown=65532:65532 .build/image/state/", "COPY .build/image/state/", &df},
		{"whose state directory is another user's", "COPY --chown=65532:65532 .build/image/state/", "COPY --chown=1000:1000 .build/image/state/", &df},
		{"whose state file is not on the volume", "ENV STATE_DIRECTORY=/var/lib/mintlify_exporter", "ENV STATE_DIRECTORY=/tmp", &df},
		{"whose /var/lib is the user's", "COPY .build/image/rootfs/ /", "", &df},
		{"without the version label from VERSION", `org.opencontainers.image.version="${VERSION}"`, `org.opencontainers.image.version="0.0.1"`, &df},
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
			f := slices.DeleteFunc(strings.Fields(c), func(w string) bool { return strings.HasPrefix(w, "--") })
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
	case !strings.Contains(df, `org.opencontainers.image.version="${VERSION}"`) || !strings.Contains(mk, "--build-arg VERSION=$(VERSION)"):
		return "the image's version label is not make's VERSION"
	}
	if msg := checkStateDir(df, uid[1]); msg != "" {
		return msg
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

// imageStateDir is where the image keeps the state file and its ledger.
const imageStateDir = "/var/lib/mintlify_exporter"

// checkStateDir: the image has a state directory that the user uid owns,
// declared a volume, with --storage.path's default in it (through
// STATE_DIRECTORY, as under systemd), and /var/lib above it stays root's.
func checkStateDir(df, uid string) string {
	chown := regexp.MustCompile(`(?m)^COPY --chown=(\d+):(\d+) \S+ ` + regexp.QuoteMeta(imageStateDir) + `/?\s*$`).FindStringSubmatch(df)
	switch {
	case !strings.Contains(df, `VOLUME ["`+imageStateDir+`"]`):
		return "the state directory " + imageStateDir + " is not a VOLUME: the state would be lost with the container"
	case chown == nil || chown[1] != uid || chown[2] != uid:
		return "the state directory is not created owned by the image's user " + uid + ": the exporter could not write its state"
	case !strings.Contains(df, "ENV STATE_DIRECTORY="+imageStateDir+"\n"):
		return "STATE_DIRECTORY is not " + imageStateDir + ": --storage.path would default to data/ below /, which the user cannot create"
	case !regexp.MustCompile(`(?m)^COPY \S+ /\s*$`).MatchString(df[:strings.Index(df, chown[0])]):
		return "no root-owned /var/lib is copied before the state directory: COPY --chown would give /var and /var/lib to the user"
	}
	return ""
}
