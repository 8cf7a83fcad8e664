package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// versionSources is every place that states the project's version, as
// read from the repository and from make's dry runs.
type versionSources struct {
	file      string // VERSION
	script    string // what packaging/version.sh prints
	packages  string // what packaging/pkgversion.sh prints for it
	chart     string // deploy/helm/mintlify-exporter/Chart.yaml
	values    string // the chart's values.yaml
	helpers   string // the chart's templates/_helpers.tpl
	df        string // Dockerfile
	imageSh   string // packaging/image.sh (make release-image)
	changelog string // CHANGELOG.md
	manifest  string // deploy/kubernetes/deployment.yaml
	// make -n of build, image, release and release-image.
	makeBuild, makeImage, makeRelease, makeReleaseImage string
}

const chartDir = "deploy/helm/mintlify-exporter"

var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// check returns every place whose version is not the VERSION file's.
func (s versionSources) check() []string {
	v := strings.TrimSpace(s.file)
	if !semver.MatchString(v) {
		return []string{fmt.Sprintf("VERSION holds %q, not a version such as 1.2.0", v)}
	}
	var bad []string
	want := func(ok bool, format string, args ...any) {
		if !ok {
			bad = append(bad, fmt.Sprintf(format, args...))
		}
	}
	q := regexp.QuoteMeta(v)
	want(strings.TrimSpace(s.script) == v, "packaging/version.sh prints %q, VERSION holds %s", strings.TrimSpace(s.script), v)
	// nfpm's version is VERSION; the deb's and the rpm's start with its
	// release part (1.3.0-rc.1 becomes 1.3.0~rc.1-1).
	base, _, _ := strings.Cut(v, "-")
	pkg := strings.Fields(s.packages)
	want(len(pkg) == 3 && pkg[0] == v && strings.HasPrefix(pkg[1], base) && strings.HasPrefix(pkg[2], base),
		"the packages' versions (nfpm, deb, rpm) are %q for %s", strings.TrimSpace(s.packages), v)
	want(regexp.MustCompile(`(?m)^version: "?`+q+`"?\s*$`).MatchString(s.chart), "Chart.yaml's version is not %s", v)
	want(regexp.MustCompile(`(?m)^appVersion: "?`+q+`"?\s*$`).MatchString(s.chart), "Chart.yaml's appVersion is not %s", v)
	tag := regexp.MustCompile(`(?m)^  tag: "?([^"\s]*)"?\s*(#.*)?$`).FindStringSubmatch(s.values)
	switch {
	case tag == nil:
		bad = append(bad, "the chart's values.yaml has no image.tag")
	case tag[1] == "":
		// The published tag: v and the version.
		want(strings.Contains(s.helpers, `default (printf "v%s" .Chart.AppVersion) .Values.image.tag`),
			"the chart's image.tag is empty but its image does not default to v and .Chart.AppVersion")
	default:
		want(tag[1] == v, "the chart's default image tag is %s, VERSION holds %s", tag[1], v)
	}
	want(regexp.MustCompile(`(?m)^\s+image: `+regexp.QuoteMeta(publishedImage)+`:v`+q+`\s*$`).MatchString(s.manifest),
		"deploy/kubernetes/deployment.yaml does not run %s:v%s", publishedImage, v)
	want(strings.Contains(s.df, `org.opencontainers.image.version="${VERSION}"`), "the Dockerfile's version label is not the VERSION build argument")
	want(strings.Contains(s.imageSh, `--build-arg VERSION="$VERSION"`), "make release-image does not pass its VERSION to the Dockerfile")
	want(regexp.MustCompile(`(?m)^## `+q+` / \d{4}-\d{2}-\d{2}$`).MatchString(s.changelog), "CHANGELOG.md has no section '## %s / YYYY-MM-DD'", v)
	want(strings.Contains(s.makeBuild, "version.Version="+v+" "), "make build does not stamp version %s: %s", v, s.makeBuild)
	want(strings.Contains(s.makeImage, "--build-arg VERSION="+v+" ") && strings.Contains(s.makeImage, "-t mintlify_exporter:"+v+" "),
		"make image does not build mintlify_exporter:%s with the version label %s", v, v)
	// The line that runs packaging/release.sh.
	want(regexp.MustCompile(`GO='[^']*' VERSION='`+q+`' LDFLAGS='[^']*version\.Version=`+q+` `).MatchString(s.makeRelease),
		"make release does not build version %s", v)
	want(strings.Contains(s.makeReleaseImage, "RELEASE_IMAGE='"+publishedImage+":v"+v+"'") && strings.Contains(s.makeReleaseImage, "VERSION='"+v+"'"),
		"make release-image does not build %s:v%s", publishedImage, v)
	// make image's name is not make release-image's manifest list's or one
	// of its images' (buildah refuses a name an image already has), so the
	// two targets run in either order.
	if m := regexp.MustCompile(` -t (\S+) `).FindStringSubmatch(s.makeImage); m != nil {
		rel := regexp.MustCompile(`RELEASE_IMAGE='([^']*)'`).FindStringSubmatch(s.makeReleaseImage)
		want(rel != nil && !strings.HasPrefix(strings.TrimPrefix(m[1], "localhost/"), strings.TrimPrefix(rel[1], "localhost/")),
			"make image builds %s, a name make release-image's %v takes", m[1], rel)
	}
	return bad
}

// readVersionSources reads the repository's and make's statements of the
// version; ok is false when a tool is missing (recorded by toolcheck).
func readVersionSources(t *testing.T) (versionSources, bool) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	s := versionSources{
		file: read("VERSION"), chart: read(filepath.Join(chartDir, "Chart.yaml")),
		values: read(filepath.Join(chartDir, "values.yaml")), helpers: read(filepath.Join(chartDir, "templates/_helpers.tpl")),
		df: read("Dockerfile"), imageSh: read("packaging/image.sh"), changelog: read("CHANGELOG.md"),
		manifest: read("deploy/kubernetes/deployment.yaml"),
	}
	if _, ok := toolcheck.Find(t, "make", "apt-get install make", "the versions make stamps"); !ok {
		return s, false
	}
	run := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	s.script = run("sh", "packaging/version.sh")
	s.packages = run("bash", "packaging/pkgversion.sh", strings.TrimSpace(s.script))
	// make -n prints the commands with the variables expanded (and runs
	// the sub-make of release, itself with -n); nothing is built.
	s.makeBuild = run("make", "-n", "--no-print-directory", "build")
	s.makeImage = run("make", "-n", "--no-print-directory", "image")
	s.makeRelease = run("make", "-n", "--no-print-directory", "release")
	s.makeReleaseImage = run("make", "-n", "--no-print-directory", "release-image")
	return s, true
}

// TestVersionsAgree: the binary make builds, the image and its label, the
// release archives and packages, the Helm chart (version, appVersion and
// its default image tag), the Kubernetes Deployment's image and the
// changelog all carry the VERSION file's version.
func TestVersionsAgree(t *testing.T) {
	s, ok := readVersionSources(t)
	if !ok {
		return
	}
	for _, p := range s.check() {
		t.Error(p)
	}
	if t.Failed() {
		return
	}
	v := strings.TrimSpace(s.file)
	other := "9.8.7"
	for _, c := range []struct {
		what     string
		field    *string
		from, to string
	}{
		{"another VERSION", &s.file, v, other},
		{"a VERSION that is no version", &s.file, v, "v" + v},
		{"version.sh printing another", &s.script, v, other},
		{"packages of another version", &s.packages, v + " ", other + " "},
		{"debs of another version", &s.packages, " " + v + "-1 ", " " + other + "-1 "},
		{"a chart of another version", &s.chart, "version: " + v, "version: " + other},
		{"a chart running another version", &s.chart, `appVersion: "` + v + `"`, `appVersion: "` + other + `"`},
		{"a chart whose image is another version", &s.values, `tag: ""`, `tag: "` + other + `"`},
		{"a Deployment of another version", &s.manifest, publishedImage + ":v" + v, publishedImage + ":v" + other},
		{"a Deployment of latest", &s.manifest, publishedImage + ":v" + v, publishedImage + ":latest"},
		{"a chart whose empty tag means latest", &s.helpers, `default (printf "v%s" .Chart.AppVersion) .Values.image.tag`, `default "latest" .Values.image.tag`},
		{"a chart whose empty tag is the version without v", &s.helpers, `default (printf "v%s" .Chart.AppVersion) .Values.image.tag`, `default .Chart.AppVersion .Values.image.tag`},
		{"an image labelled with another version", &s.df, `version="${VERSION}"`, `version="` + other + `"`},
		{"release images without the version", &s.imageSh, `--build-arg VERSION="$VERSION"`, ""},
		{"no changelog section", &s.changelog, "## " + v + " /", "## " + other + " /"},
		{"a binary of another version", &s.makeBuild, "version.Version=" + v, "version.Version=" + other},
		{"an image of another tag", &s.makeImage, "mintlify_exporter:" + v, "mintlify_exporter:" + other},
		{"archives of another version", &s.makeRelease, "' VERSION='" + v + "' LDFLAGS", "' VERSION='" + other + "' LDFLAGS"},
		{"archive binaries of another version", &s.makeRelease, "LDFLAGS='-s -w -X github.com/prometheus/common/version.Version=" + v, "LDFLAGS='-s -w -X github.com/prometheus/common/version.Version=" + other},
		{"release images of another tag", &s.makeReleaseImage, "mintlify_exporter:v" + v, "mintlify_exporter:v" + other},
		{"release images under make image's name", &s.makeReleaseImage, "RELEASE_IMAGE='" + publishedImage + ":v" + v, "RELEASE_IMAGE='mintlify_exporter:" + v},
	} {
		if !strings.Contains(*c.field, c.from) {
			t.Errorf("%s: nothing to change, %q not found", c.what, c.from)
			continue
		}
		saved := *c.field
		*c.field = strings.Replace(saved, c.from, c.to, 1)
		if len(s.check()) == 0 {
			t.Errorf("%s passed the check", c.what)
		}
		*c.field = saved
	}
}

// TestBuiltVersion: a binary built by make build says the VERSION file's
// version and the commit it was built from (--version).
func TestBuiltVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, ok := toolcheck.Find(t, "make", "apt-get install make", "the version of make build's binary"); !ok {
		return
	}
	v := strings.TrimSpace(readFile(t, "VERSION"))
	bin := filepath.Join(t.TempDir(), "mintlify_exporter")
	// HEAD before and after the build: a commit made while the test runs
	// (a developer working beside it) may be either.
	before := headRevision()
	if out, err := exec.Command("make", "--no-print-directory", "build", "BINARY="+bin).CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	revs := regexp.QuoteMeta(before)
	if after := headRevision(); after != before {
		revs = "(?:" + revs + "|" + regexp.QuoteMeta(after) + ")"
	}
	want := regexp.MustCompile(`^mintlify_exporter, version ` + regexp.QuoteMeta(v) + ` \(branch: [^,]*, revision: ` + revs + `\)\n`)
	if !want.Match(out) {
		t.Errorf("--version of make build's binary says\n%s\nwant the first line to match %s", out, want)
	}
}

// headRevision is git's HEAD, or "unknown" as make has it outside git.
func headRevision() string {
	if r, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		return strings.TrimSpace(string(r))
	}
	return "unknown"
}

// TestStampVersion: a binary built without make's ldflags takes the
// VERSION file's version; one built with them keeps what make stamped.
func TestStampVersion(t *testing.T) {
	saved := version.Version
	t.Cleanup(func() { version.Version = saved })
	version.Version = ""
	stampVersion()
	if want := strings.TrimSpace(readFile(t, "VERSION")); version.Version != want {
		t.Errorf("without ldflags the version is %q, want VERSION's %q", version.Version, want)
	}
	version.Version = "1.2.3"
	stampVersion()
	if version.Version != "1.2.3" {
		t.Errorf("stampVersion replaced the stamped version 1.2.3 with %q", version.Version)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
