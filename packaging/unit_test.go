package packaging_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
	"github.com/mintlify-exporter/mintlify_exporter/packaging"
)

func TestMain(m *testing.M) {
	os.Exit(toolcheck.Wrap(m, "packaging").Run())
}

// sourceOf is deploy/systemd's unit of that name.
func sourceOf(name string) string { return filepath.Join("..", "deploy", "systemd", name+".service") }

// directive is one setting of a unit file, comments and blank lines left
// out.
type directive struct{ section, key, value string }

func (d directive) String() string { return fmt.Sprintf("[%s] %s=%s", d.section, d.key, d.value) }

func parseUnit(t *testing.T, b []byte) []directive {
	t.Helper()
	var out []directive
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
		case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			section = l[1 : len(l)-1]
		default:
			k, v, ok := strings.Cut(l, "=")
			if !ok || section == "" {
				t.Fatalf("line %d: %q is not a directive of a section", n, l)
			}
			out = append(out, directive{section, k, v})
		}
	}
	return out
}

func readSource(t *testing.T) []byte {
	t.Helper()
	return readUnit(t, packaging.ExporterUnit)
}

func readUnit(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(sourceOf(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUnitDiffersOnlyAsIntended generates the packaged units, the
// exporter's and the receiver's, for both formats and checks that,
// setting for setting and in order, they are deploy/systemd's but for the
// environment file and ExecStart's binary and $ARGS.
func TestUnitDiffersOnlyAsIntended(t *testing.T) {
	for _, name := range packaging.Units {
		for _, f := range []packaging.Flavor{packaging.Deb, packaging.RPM} {
			t.Run(name+"/"+string(f), func(t *testing.T) { checkUnit(t, name, f) })
		}
	}
}

func checkUnit(t *testing.T, name string, f packaging.Flavor) {
	src := readUnit(t, name)
	want := parseUnit(t, src)
	env, err := f.EnvironmentFileOf(name)
	if err != nil {
		t.Fatal(err)
	}
	unit, err := packaging.UnitOf(name, src, f)
	if err != nil {
		t.Fatal(err)
	}
	got := parseUnit(t, unit)
	var rest []directive
	var execStart, envFile []string
	for _, d := range got {
		switch {
		case d.section == "Service" && d.key == "EnvironmentFile":
			envFile = append(envFile, d.value)
		case d.section == "Service" && d.key == "ExecStart":
			execStart = append(execStart, d.value)
			// Back to the source's, to compare the rest.
			v, ok := strings.CutSuffix(d.value, " $ARGS")
			if !ok {
				t.Errorf("ExecStart=%s does not end with $ARGS", d.value)
			}
			v, ok = strings.CutPrefix(v, packaging.PackageBinary+" ")
			if !ok {
				t.Errorf("ExecStart=%s does not run %s", d.value, packaging.PackageBinary)
			}
			rest = append(rest, directive{d.section, d.key, packaging.SourceBinary + " " + v})
		default:
			rest = append(rest, d)
		}
	}
	if !slices.Equal(envFile, []string{"-" + env}) {
		t.Errorf("EnvironmentFile= %q, want exactly [-%s]", envFile, env)
	}
	if len(execStart) != 1 {
		t.Errorf("%d ExecStart= lines, want 1", len(execStart))
	}
	if !slices.Equal(rest, want) {
		i := 0
		for i < len(rest) && i < len(want) && rest[i] == want[i] {
			i++
		}
		var g, w directive
		if i < len(rest) {
			g = rest[i]
		}
		if i < len(want) {
			w = want[i]
		}
		t.Errorf("the packaged unit's settings differ from deploy/systemd's at setting %d: have %v, want %v", i+1, g, w)
	}
	// Comments: the packaged unit names no other binary, and says
	// where it comes from.
	if bytes.Contains(unit, []byte(packaging.SourceBinary)) {
		t.Errorf("the packaged unit still names %s", packaging.SourceBinary)
	}
	if !bytes.Contains(unit, []byte("generated from\n# deploy/systemd/"+name+".service")) {
		t.Errorf("the packaged unit does not say it is generated from deploy/systemd's")
	}
	if !bytes.Contains(unit, []byte("#   "+env)) {
		t.Errorf("the packaged unit's file list does not name %s", env)
	}
}

// TestReceiverUnitSharesTheExporters: the receiver's unit runs as the
// exporter's user in the exporter's state directory (the tracked-jobs
// file it appends to is the exporter's), with the exporter's hardening,
// the token as a credential, and nothing that would start it on install.
func TestReceiverUnitSharesTheExporters(t *testing.T) {
	exp, recv := parseUnit(t, readSource(t)), parseUnit(t, readUnit(t, packaging.ReceiverUnit))
	has := func(ds []directive, d directive) bool { return slices.Contains(ds, d) }
	for _, d := range []directive{
		{"Service", "User", "mintlify_exporter"},
		{"Service", "DynamicUser", "yes"},
		{"Service", "StateDirectory", "mintlify_exporter"},
		{"Service", "LoadCredential", "receiver_token:/etc/mintlify_exporter/receiver.token"},
	} {
		if !has(recv, d) {
			t.Errorf("the receiver's unit lacks %v", d)
		}
	}
	// Every hardening setting of the exporter's, the same.
	hardening := false
	for _, d := range exp {
		if d.key == "DynamicUser" {
			hardening = true
		}
		if hardening && d.section == "Service" && !has(recv, d) {
			t.Errorf("the receiver's unit lacks the exporter's %v", d)
		}
	}
	for _, d := range recv {
		if d.section == "Service" && d.key == "ExecStart" {
			for _, flag := range []string{" receiver ", "--config.file=/etc/mintlify_exporter/routes.yml", "--receiver.bearer-token-file=%d/receiver_token",
				"--receiver.tracked-jobs-file=/var/lib/mintlify_exporter/jobs.txt", "--mintlify.api-key-file=%d/receiver_api_key"} {
				if !strings.Contains(d.value, flag) {
					t.Errorf("ExecStart=%s lacks %s", d.value, flag)
				}
			}
			if strings.Contains(d.value, "--receiver.act") || strings.Contains(d.value, "--storage.path") {
				t.Errorf("ExecStart=%s acts, or moves the state file out of the default beside the exporter's", d.value)
			}
		}
	}
}

// TestUnitRefusesDrift: a source the generator cannot transform exactly as
// intended is refused, not turned into a half-changed unit.
func TestUnitRefusesDrift(t *testing.T) {
	src := string(readSource(t))
	exec := "ExecStart=" + packaging.SourceBinary + " --config.file=/etc/mintlify_exporter/mintlify.yml\n"
	if !strings.Contains(src, exec) {
		t.Fatalf("the source has no line %q", exec)
	}
	for name, in := range map[string]string{
		"no ExecStart":       strings.Replace(src, exec, "", 1),
		"two ExecStart":      strings.Replace(src, exec, exec+exec, 1),
		"other binary":       strings.Replace(src, exec, "ExecStart=/opt/bin/mintlify_exporter\n", 1),
		"binary named again": strings.Replace(src, exec, exec+"ExecStartPre="+packaging.SourceBinary+" --config.check\n", 1),
		"no comment":         src[strings.Index(src, "[Unit]"):],
		"no binary comment":  strings.Replace(src, "#   "+packaging.SourceBinary, "#   /bin/sh", 1),
	} {
		if _, err := packaging.UnitOf(packaging.ExporterUnit, []byte(in), packaging.Deb); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if _, err := packaging.UnitOf(packaging.ExporterUnit, []byte(src), "apk"); err == nil {
		t.Error("format apk: no error")
	}
}

// TestSystemdAnalyzeVerify runs systemd-analyze verify on both packaged
// units, the binary pointed at an existing file, as deploy's test does for
// the source unit.
func TestSystemdAnalyzeVerify(t *testing.T) {
	sa, ok := toolcheck.Find(t, "systemd-analyze", "apt-get install systemd", "systemd-analyze verify of the packaged units")
	if !ok {
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	verify := func(name string, unit []byte) (string, error) {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, unit, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(sa, "verify", "--man=no", f).CombinedOutput()
		return string(out), err
	}
	if out, err := verify("probe.service", []byte("[Service]\nExecStart="+self+"\n")); err != nil || out != "" {
		toolcheck.Skipped(t, "systemd-analyze", fmt.Sprintf("verify does not work here (%v: %.120s)", err, strings.Join(strings.Fields(out), " ")), "systemd-analyze verify of the packaged units")
		return
	}
	for _, name := range packaging.Units {
		for _, f := range []packaging.Flavor{packaging.Deb, packaging.RPM} {
			unit, err := packaging.UnitOf(name, readUnit(t, name), f)
			if err != nil {
				t.Fatal(err)
			}
			unit = bytes.ReplaceAll(unit, []byte(packaging.PackageBinary+" "), []byte(self+" "))
			if out, err := verify(name+".service", unit); err != nil || out != "" {
				t.Errorf("%s %s: systemd-analyze verify: %v\n%s", name, f, err, out)
			}
		}
	}
}

// nfpmConfig is the part of packaging/nfpm.yaml the checks read.
type nfpmConfig struct {
	Name       string `yaml:"name"`
	Arch       string `yaml:"arch"`
	Version    string `yaml:"version"`
	Maintainer string `yaml:"maintainer"`
	Homepage   string `yaml:"homepage"`
	License    string `yaml:"license"`
	Contents   []struct {
		Src      string `yaml:"src"`
		Dst      string `yaml:"dst"`
		Type     string `yaml:"type"`
		Packager string `yaml:"packager"`
		FileInfo struct {
			Mode any `yaml:"mode"`
		} `yaml:"file_info"`
	} `yaml:"contents"`
	Overrides map[string]struct {
		Scripts map[string]string `yaml:"scripts"`
	} `yaml:"overrides"`
}

func readNfpm(t *testing.T) nfpmConfig {
	t.Helper()
	b, err := os.ReadFile("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c nfpmConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNfpmConfig checks what each package format installs where, that the
// files it copies from the repository exist, and the package metadata.
func TestNfpmConfig(t *testing.T) {
	c := readNfpm(t)
	if !regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`).MatchString(c.Name) {
		t.Errorf("name %q is not a valid Debian package name", c.Name)
	}
	if !regexp.MustCompile(`^[^<>]+ <[^@<> ]+@[^@<> ]+\.[a-z]+>$`).MatchString(c.Maintainer) {
		t.Errorf("maintainer %q is not 'Name <address>'", c.Maintainer)
	}
	if c.License != "Apache-2.0" || !strings.HasPrefix(c.Homepage, "https://") {
		t.Errorf("license %q homepage %q", c.License, c.Homepage)
	}
	if c.Arch != "${NFPM_ARCH}" || c.Version != "${NFPM_VERSION}" {
		t.Errorf("arch %q version %q: make release sets them through NFPM_ARCH and NFPM_VERSION", c.Arch, c.Version)
	}

	// dst → type, for each format.
	got := map[string]map[string]string{"deb": {}, "rpm": {}}
	for _, e := range c.Contents {
		for _, f := range []string{"deb", "rpm"} {
			if e.Packager == "" || e.Packager == f {
				if _, dup := got[f][e.Dst]; dup {
					t.Errorf("%s: %s installed twice", f, e.Dst)
				}
				got[f][e.Dst] = e.Type
			}
		}
		if e.Src != "" && !strings.Contains(e.Src, "${") && e.Type != "symlink" {
			if _, err := os.Stat(filepath.Join("..", e.Src)); err != nil {
				t.Errorf("%s: source %s: %v", e.Dst, e.Src, err)
			}
		}
		if strings.HasPrefix(e.Dst, "/etc/") && e.Type != "dir" && e.Type != "config|noreplace" {
			t.Errorf("%s has type %q; an edited file under /etc must survive upgrades (config|noreplace)", e.Dst, e.Type)
		}
	}
	env, recvEnv := map[string]string{}, map[string]string{}
	for _, f := range []packaging.Flavor{packaging.Deb, packaging.RPM} {
		env[string(f)], _ = f.EnvironmentFile()
		recvEnv[string(f)], _ = f.EnvironmentFileOf(packaging.ReceiverUnit)
	}
	receiverUnit := "/usr/lib/systemd/system/" + packaging.ReceiverUnit + ".service"
	for f, want := range map[string]map[string]string{
		"deb": {
			"/usr/bin/mintlify_exporter":                        "",
			packaging.UnitPath:                                  "",
			receiverUnit:                                        "",
			env["deb"]:                                          "config|noreplace",
			recvEnv["deb"]:                                      "config|noreplace",
			"/etc/mintlify_exporter/routes.yml":                 "config|noreplace",
			"/etc/mintlify_exporter":                            "dir",
			"/etc/mintlify_exporter/mintlify.yml":               "config|noreplace",
			"/usr/share/doc/" + c.Name + "/copyright":           "",
			"/usr/share/doc/" + c.Name + "/changelog.Debian.gz": "",
			"/usr/share/lintian/overrides/" + c.Name:            "",
			"/usr/share/doc/" + c.Name:                          "tree",
			"/usr/share/doc/" + c.Name + "/LICENSE":             "symlink",
			"/usr/share/doc/" + c.Name + "/licenses":            "tree",
			"/usr/share/man/man1/mintlify_exporter.1.gz":        "",
		},
		"rpm": {
			"/usr/bin/mintlify_exporter":                 "",
			packaging.UnitPath:                           "",
			receiverUnit:                                 "",
			env["rpm"]:                                   "config|noreplace",
			recvEnv["rpm"]:                               "config|noreplace",
			"/etc/mintlify_exporter/routes.yml":          "config|noreplace",
			"/etc/mintlify_exporter":                     "dir",
			"/etc/mintlify_exporter/mintlify.yml":        "config|noreplace",
			"/usr/share/licenses/" + c.Name + "/LICENSE": "license",
			"/usr/share/doc/" + c.Name:                   "tree",
			"/usr/share/doc/" + c.Name + "/LICENSE":      "symlink",
			"/usr/share/doc/" + c.Name + "/licenses":     "tree",
			"/usr/share/man/man1/mintlify_exporter.1.gz": "",
		},
	} {
		for dst, typ := range want {
			if have, ok := got[f][dst]; !ok {
				t.Errorf("%s: nothing installed at %s", f, dst)
			} else if have != typ {
				t.Errorf("%s: %s has type %q, want %q", f, dst, have, typ)
			}
		}
		other := []string{env["rpm"], recvEnv["rpm"]}
		if f == "rpm" {
			other = []string{env["deb"], recvEnv["deb"]}
		}
		for _, o := range other {
			if _, ok := got[f][o]; ok {
				t.Errorf("%s installs %s, the other format's environment file", f, o)
			}
		}
	}

	// The maintainer scripts exist, are POSIX sh, and parse.
	for f, want := range map[string][]string{"deb": {"postinstall", "preremove", "postremove"}, "rpm": {"postinstall", "preremove", "postremove"}} {
		scripts := c.Overrides[f].Scripts
		for _, s := range want {
			path := scripts[s]
			if path == "" {
				t.Errorf("%s: no %s script", f, s)
				continue
			}
			b, err := os.ReadFile(filepath.Join("..", path))
			if err != nil {
				t.Error(err)
				continue
			}
			if !bytes.HasPrefix(b, []byte("#!/bin/sh\n")) {
				t.Errorf("%s does not start with #!/bin/sh", path)
			}
			if out, err := exec.Command("sh", "-n", filepath.Join("..", path)).CombinedOutput(); err != nil {
				t.Errorf("sh -n %s: %v\n%s", path, err, out)
			}
		}
	}
}

// TestEnvironmentFile: the /etc/default (sysconfig) file sets ARGS="" and
// nothing else, so a fresh install runs the unit's command line as is.
func TestEnvironmentFile(t *testing.T) {
	for file, secret := range map[string]string{
		"mintlify_exporter.default":          "/etc/mintlify_exporter/api_key",
		"mintlify_exporter-receiver.default": "/etc/mintlify_exporter/receiver_api_key",
	} {
		t.Run(file, func(t *testing.T) { checkEnvironmentFile(t, file, secret) })
	}
}

func checkEnvironmentFile(t *testing.T, file, secret string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var settings []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			settings = append(settings, l)
		}
	}
	if !slices.Equal(settings, []string{`ARGS=""`}) {
		t.Errorf("settings %q, want only ARGS=\"\"", settings)
	}
	if !bytes.Contains(b, []byte(secret)) {
		t.Error("the file does not say where the key goes")
	}
}

// TestNfpmBuilds packages a stand-in binary with nfpm in both formats,
// when nfpm is installed (make release installs it), so a configuration
// nfpm refuses fails here and not only in make release.
func TestNfpmBuilds(t *testing.T) {
	nfpm, ok := toolcheck.Find(t, "nfpm", "go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2", "nfpm packaging of the configuration")
	if !ok {
		return
	}
	stage := t.TempDir()
	out := t.TempDir()
	for _, d := range []string{"deb", "rpm", "licenses/example.com/m", "doc/dashboards"} {
		if err := os.MkdirAll(filepath.Join(stage, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(stage, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mintlify_exporter", []byte("#!/bin/sh\n"))
	write("changelog.Debian.gz", []byte("stand-in"))
	write("licenses/example.com/m/LICENSE", []byte("stand-in"))
	write("doc/README.md", []byte("stand-in"))
	write("doc/dashboards/mintlify.json", []byte("{}"))
	write("mintlify_exporter.1.gz", []byte("stand-in"))
	for _, name := range packaging.Units {
		for _, f := range []packaging.Flavor{packaging.Deb, packaging.RPM} {
			unit, err := packaging.UnitOf(name, readUnit(t, name), f)
			if err != nil {
				t.Fatal(err)
			}
			write(string(f)+"/"+name+".service", unit)
		}
	}
	for _, f := range []string{"deb", "rpm"} {
		cmd := exec.Command(nfpm, "package", "--config", "packaging/nfpm.yaml", "--packager", f, "--target", out+"/")
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "NFPM_ARCH=amd64", "NFPM_VERSION=1.2.3", "NFPM_STAGE="+stage)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("nfpm %s: %v\n%s", f, err, b)
		}
	}
	for _, want := range []string{"mintlify-exporter_1.2.3-1_amd64.deb", "mintlify-exporter-1.2.3-1.x86_64.rpm"} {
		if _, err := os.Stat(filepath.Join(out, want)); err != nil {
			t.Error(err)
		}
	}
}

// TestPkgVersion: the package versions of each kind of release version,
// and that they sort as the releases do (dpkg --compare-versions, when
// dpkg is installed).
func TestPkgVersion(t *testing.T) {
	run := func(v string) ([]string, error) {
		out, err := exec.Command("bash", "pkgversion.sh", v).Output()
		return strings.Fields(string(out)), err
	}
	for v, want := range map[string][]string{
		"1.2.0":                        {"1.2.0", "1.2.0-1", "1.2.0-1"},
		"1.3.0-rc.1":                   {"1.3.0-rc.1", "1.3.0~rc.1-1", "1.3.0~rc.1-1"},
		"1.2.0-3-gabc1234":             {"1.2.0+3.gabc1234", "1.2.0+3.gabc1234-1", "1.2.0+3.gabc1234-1"},
		"1.2.0-3-gabc1234-dirty":       {"1.2.0+3.gabc1234.dirty", "1.2.0+3.gabc1234.dirty-1", "1.2.0+3.gabc1234.dirty-1"},
		"0.0.0-SNAPSHOT-abc1234":       {"0.0.0-SNAPSHOT-abc1234", "0.0.0~SNAPSHOT-abc1234-1", "0.0.0~SNAPSHOT_abc1234-1"},
		"0.0.0-SNAPSHOT-abc1234-dirty": {"0.0.0-SNAPSHOT-abc1234-dirty", "0.0.0~SNAPSHOT-abc1234-dirty-1", "0.0.0~SNAPSHOT_abc1234_dirty-1"},
	} {
		got, err := run(v)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("pkgversion.sh %s = %q (%v), want %q", v, got, err, want)
		}
	}
	for _, v := range []string{"abc1234", "v1.2.0", "1.2", ""} {
		if got, err := run(v); err == nil {
			t.Errorf("pkgversion.sh %q = %q, want an error", v, got)
		}
	}

	dpkg, ok := toolcheck.Find(t, "dpkg", "a Debian system", "the order of the deb versions")
	if !ok {
		return
	}
	// Each release sorts after the one before it.
	order := []string{"0.0.0-SNAPSHOT-abc1234", "1.2.0", "1.2.0-3-gabc1234", "1.3.0-rc.1", "1.3.0-rc.1-2-gdef5678", "1.3.0"}
	for i := 1; i < len(order); i++ {
		a, errA := run(order[i-1])
		b, errB := run(order[i])
		if errA != nil || errB != nil {
			t.Fatalf("pkgversion.sh: %v %v", errA, errB)
		}
		if err := exec.Command(dpkg, "--compare-versions", b[1], "gt", a[1]).Run(); err != nil {
			t.Errorf("deb %s (%s) does not sort after %s (%s)", b[1], order[i], a[1], order[i-1])
		}
	}
}
