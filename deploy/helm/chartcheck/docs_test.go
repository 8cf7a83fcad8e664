package chartcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// fences returns the bodies of the Markdown file's fenced blocks of the
// language lang.
func fences(t *testing.T, path, lang string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// words splits a shell command line as sh would for the quoting the docs
// use: single and double quotes, backslash-newline continuations.
func words(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range strings.ReplaceAll(line, "\\\n", " ") {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// helmCommands returns the `helm install` and `helm template` commands of
// the file's sh blocks and inline code, as words.
func helmCommands(t *testing.T, path string) [][]string {
	t.Helper()
	var cmds [][]string
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`(helm (?:install|template) [^`]*)`").FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(m[1], "...") { // not an elided one
			cmds = append(cmds, words(t, m[1]))
		}
	}
	for _, block := range fences(t, path, "sh") {
		for _, line := range regexp.MustCompile(`(?m)^helm (?:install|template) (?:.*\\\n)*.*$`).FindAllString(block, -1) {
			cmds = append(cmds, words(t, line))
		}
	}
	return cmds
}

// publishedChart is where the release workflow pushes the chart
// (.github/workflows/release.yml); the docs install it from there, with
// a --version.
const publishedChart = "oci://ghcr.io/mintlify-exporter/charts/mintlify-exporter"

// TestDocumentedCommands: the helm commands of the chart's README (its
// values file the first yaml block), of
// docs/deployment.md and of the README render (install turned into
// template, offline; the published chart replaced by this one) once
// YOUR_PROJECT_ID is replaced, into a configuration with that id and the
// name docs; as written, they fail on the placeholder. The commands
// that render offline pass --kube-version.
func TestDocumentedCommands(t *testing.T) {
	valuesFile := filepath.Join(t.TempDir(), "my-values.yaml")
	var example string
	for _, y := range fences(t, filepath.Join(chart, "README.md"), "yaml") {
		if example == "" && !strings.Contains(y, "global:") {
			example = y
		}
	}
	if example == "" {
		t.Fatal("the chart's README shows no values file")
	}
	n := 0
	for _, doc := range []string{filepath.Join(chart, "README.md"), "../../../docs/deployment.md", "../../../README.md"} {
		for _, cmd := range helmCommands(t, doc) {
			n++
			if cmd[1] == "template" && !slices.Contains(cmd, "--kube-version") {
				t.Errorf("%s: %q renders offline without --kube-version", doc, strings.Join(cmd, " "))
			}
			args := []string{"template"}
			for i := 2; i < len(cmd); i++ {
				a := cmd[i]
				switch a {
				case "deploy/helm/mintlify-exporter", publishedChart:
					a = chart
				case "--version": // of the published chart: this one
					i++
					continue
				case "my-values.yaml":
					a = valuesFile
				}
				args = append(args, a)
			}
			if !slices.Contains(args, "--kube-version") {
				args = append(args, "--kube-version", kubeVersion)
			}
			if err := os.WriteFile(valuesFile, []byte(example), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := helm(t, args...)
			if err == nil || !strings.Contains(err.Error(), `config.projects[0].id is the placeholder "YOUR_PROJECT_ID"`) {
				t.Errorf("%s: %q as written: %v, want the placeholder refused", doc, strings.Join(cmd, " "), err)
			}
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "YOUR_PROJECT_ID", "a1b2c3")
			}
			if err := os.WriteFile(valuesFile, []byte(strings.ReplaceAll(example, "YOUR_PROJECT_ID", "a1b2c3")), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := helm(t, args...)
			if err != nil {
				t.Errorf("%s: %q: %v", doc, strings.Join(cmd, " "), err)
				continue
			}
			checkDocumentedRelease(t, doc, objects(t, out))
		}
	}
	if n < 5 {
		t.Errorf("only %d helm commands found in the docs", n)
	}
}

// checkDocumentedRelease: the project is a1b2c3 named docs, and the key
// is the Secret mintlify-key.
func checkDocumentedRelease(t *testing.T, doc string, objs []rendered) {
	t.Helper()
	var project, secret string
	for _, o := range objs {
		v, err := decode(o)
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		switch v := v.(type) {
		case *corev1.ConfigMap:
			var cfg struct {
				Projects []struct{ ID, Name string }
			}
			if err := yaml.Unmarshal([]byte(v.Data["mintlify.yml"]), &cfg); err == nil && len(cfg.Projects) == 1 {
				project = cfg.Projects[0].ID + "/" + cfg.Projects[0].Name
			}
		case *appsv1.Deployment:
			for _, vol := range v.Spec.Template.Spec.Volumes {
				if vol.Secret != nil && vol.Name == "api-key" {
					secret = vol.Secret.SecretName
				}
			}
		}
	}
	if project != "a1b2c3/docs" || secret != "mintlify-key" {
		t.Errorf("%s: project %q, key Secret %q; want a1b2c3/docs and mintlify-key", doc, project, secret)
	}
}

// TestUmbrellaExample: the umbrella values the chart's README shows render.
func TestUmbrellaExample(t *testing.T) {
	var example string
	for _, y := range fences(t, filepath.Join(chart, "README.md"), "yaml") {
		if strings.Contains(y, "global:") {
			example = y
		}
	}
	if example == "" {
		t.Fatal("the chart's README shows no umbrella values")
	}
	objs := decoded(t, umbrella(t, strings.ReplaceAll(example, "YOUR_PROJECT_ID", "a1b2c3")))
	d := only[*appsv1.Deployment](t, objs, "Deployment")
	if img := d.Spec.Template.Spec.Containers[0].Image; !strings.HasPrefix(img, "registry.example.com/") {
		t.Errorf("image %q", img)
	}
}

// TestKubeVersionExplained: docs/deployment.md quotes the error a helm
// without a stamped-in version gives without --kube-version; when the
// installed helm is such a build (as `go install` makes), rendering
// without the flag fails with that very message.
func TestKubeVersionExplained(t *testing.T) {
	b, err := os.ReadFile("../../../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(`\s+`).ReplaceAll(b, []byte(" "))
	m := regexp.MustCompile(`"(chart requires kubeVersion: [^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/deployment.md quotes no kubeVersion error")
	}
	_, err = helm(t, "template", "mintlify", chart, "-f", ci("default"))
	switch {
	case err == nil:
		t.Logf("this helm renders without --kube-version (a release build); the quote is not checked")
	case !strings.Contains(err.Error(), string(m[1])):
		t.Errorf("helm without --kube-version: %v; docs/deployment.md quotes %q", err, m[1])
	}
}
