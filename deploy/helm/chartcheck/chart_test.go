// Package chartcheck checks the Helm chart: lint, render with every
// values file, decode every object strictly into its Kubernetes (or
// Prometheus Operator) type, and check the Deployment as the plain
// manifests are checked. It is a module of its own so that the Kubernetes
// API types stay out of the exporter's module; `make test-chart` runs it.
package chartcheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

const chart = "../mintlify-exporter"

// kubeVersion is the Kubernetes version every helm call renders and lints
// for (--kube-version): $HELM_KUBE_VERSION, which the Makefile sets, or
// 1.31.0. Without it, a helm built by `go install` (no version stamped
// in) assumes v1.20, which the chart's kubeVersion (>= 1.25) refuses.
var kubeVersion = func() string {
	v := os.Getenv("HELM_KUBE_VERSION")
	if v == "" {
		return "1.31.0"
	}
	if !regexp.MustCompile(`^v?1\.[0-9]{1,3}\.[0-9]{1,3}$`).MatchString(v) {
		fmt.Fprintf(os.Stderr, "HELM_KUBE_VERSION=%q is not a Kubernetes version such as 1.31.0\n", v)
		os.Exit(2)
	}
	return v
}()

func TestMain(m *testing.M) { os.Exit(toolcheck.Wrap(m, "chartcheck").Run()) }

// helm runs helm with args and returns its output.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin, ok := toolcheck.Find(t, "helm", "go install helm.sh/helm/v3/cmd/helm@v3.22.0", "the Helm chart checks")
	if !ok {
		t.SkipNow()
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String() + errb.String(), fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// valuesFiles are the chart's ci/*-values.yaml.
func valuesFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(chart, "ci", "*-values.yaml"))
	if err != nil || len(files) < 7 {
		t.Fatalf("ci values files: %v %v", files, err)
	}
	return files
}

func render(t *testing.T, values ...string) string {
	t.Helper()
	var args []string
	for _, v := range values {
		args = append(args, "-f", v)
	}
	return renderChart(t, chart, args...)
}

// renderChart renders dir (the chart, or an umbrella chart) as the release
// mintlify in the namespace monitoring, with args.
func renderChart(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := helm(t, append([]string{"template", "mintlify", dir, "--namespace", "monitoring", "--kube-version", kubeVersion}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type rendered struct {
	kind string
	doc  []byte
}

func objects(t *testing.T, manifest string) []rendered {
	t.Helper()
	var objs []rendered
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(manifest, -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^#.*$`).ReplaceAllString(doc, "")) == "" {
			continue
		}
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("not YAML: %v\n%s", err, doc)
		}
		objs = append(objs, rendered{meta.Kind, []byte(doc)})
	}
	return objs
}

// decode decodes o strictly into its type: an unknown or misplaced field
// is an error.
func decode(o rendered) (any, error) {
	var v any
	switch o.kind {
	case "Deployment":
		v = &appsv1.Deployment{}
	case "Service":
		v = &corev1.Service{}
	case "ServiceAccount":
		v = &corev1.ServiceAccount{}
	case "ConfigMap":
		v = &corev1.ConfigMap{}
	case "Secret":
		v = &corev1.Secret{}
	case "PersistentVolumeClaim":
		v = &corev1.PersistentVolumeClaim{}
	case "Pod":
		v = &corev1.Pod{}
	case "ServiceMonitor":
		v = &monitoringv1.ServiceMonitor{}
	case "PrometheusRule":
		v = &monitoringv1.PrometheusRule{}
	case "NetworkPolicy":
		v = &networkingv1.NetworkPolicy{}
	default:
		return nil, fmt.Errorf("kind %q has no type here", o.kind)
	}
	return v, yaml.UnmarshalStrict(o.doc, v)
}

// TestChartLints: helm lint --strict passes with every values file.
func TestChartLints(t *testing.T) {
	for _, f := range valuesFiles(t) {
		if out, err := helm(t, "lint", "--strict", "--kube-version", kubeVersion, chart, "-f", f); err != nil {
			t.Errorf("%s: %v\n%s", f, err, out)
		}
	}
}

// TestRenderedObjectsAreValid: every object rendered with every values
// file decodes strictly into its type, and the configuration the chart
// renders is one the exporter accepts.
func TestRenderedObjectsAreValid(t *testing.T) {
	kinds := map[string]bool{}
	for _, f := range valuesFiles(t) {
		for _, o := range objects(t, render(t, f)) {
			kinds[o.kind] = true
			v, err := decode(o)
			if err != nil {
				t.Errorf("%s: %s: %v", f, o.kind, err)
				continue
			}
			if cm, ok := v.(*corev1.ConfigMap); ok && cm.Data["mintlify.yml"] != "" {
				if _, err := config.Parse([]byte(cm.Data["mintlify.yml"])); err != nil {
					t.Errorf("%s: the rendered configuration is refused: %v", f, err)
				}
			}
		}
	}
	for _, k := range []string{"Deployment", "Service", "ServiceAccount", "ConfigMap", "Secret", "PersistentVolumeClaim", "Pod", "ServiceMonitor", "PrometheusRule", "NetworkPolicy"} {
		if !kinds[k] {
			t.Errorf("no values file renders a %s", k)
		}
	}
}

// TestDeployment: with every values file, the Deployment runs one replica
// with Recreate, mounts the key's Secret and the state volume where
// --storage.path points, probes the container's port, runs as non-root
// with a read-only root, and never carries the key in an argument,
// environment variable or annotation.
func TestDeployment(t *testing.T) {
	for _, f := range valuesFiles(t) {
		manifest := render(t, f)
		var d *appsv1.Deployment
		for _, o := range objects(t, manifest) {
			if o.kind == "Deployment" {
				v, err := decode(o)
				if err != nil {
					t.Fatal(err)
				}
				d = v.(*appsv1.Deployment)
			}
		}
		if d == nil {
			t.Fatalf("%s: no Deployment", f)
		}
		spec := d.Spec.Template.Spec
		c := spec.Containers[0]
		var problems []string
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
			problems = append(problems, "not one replica with Recreate")
		}
		volumes := map[string]corev1.Volume{}
		for _, v := range spec.Volumes {
			volumes[v.Name] = v
		}
		mounts := map[string]string{}
		for _, m := range c.VolumeMounts {
			mounts[m.Name] = m.MountPath
		}
		if v, ok := volumes["api-key"]; !ok || v.Secret == nil || mounts["api-key"] == "" {
			problems = append(problems, "the key's Secret is not mounted")
		}
		storage := ""
		for _, a := range c.Args {
			if s, ok := strings.CutPrefix(a, "--storage.path="); ok {
				storage = s
			}
		}
		if _, ok := volumes["state"]; !ok || mounts["state"] == "" || !strings.HasPrefix(storage, mounts["state"]+"/") {
			problems = append(problems, fmt.Sprintf("--storage.path %q is not on the state volume (%q)", storage, mounts["state"]))
		}
		ports := map[string]bool{}
		for _, p := range c.Ports {
			ports[p.Name] = true
		}
		for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/-/healthy" || !ports[p.HTTPGet.Port.String()] {
				problems = append(problems, "a probe is not /-/healthy on the container's port")
			}
		}
		sc, psc := c.SecurityContext, spec.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			problems = append(problems, "not non-root with a read-only root")
		}
		if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			problems = append(problems, "the service account token is mounted")
		}
		for _, p := range problems {
			t.Errorf("%s: %s", f, p)
		}
		// The key never shows outside its Secret.
		for _, key := range []string{"mint_chartci_"} {
			for _, o := range objects(t, manifest) {
				if o.kind != "Secret" && bytes.Contains(o.doc, []byte(key)) {
					t.Errorf("%s: the key shows in a %s", f, o.kind)
				}
			}
		}
	}
}

// TestRenderingNeedsAKey: without a key, or with two, rendering fails
// with a message that says what to set; unknown values are refused.
func TestRenderingNeedsAKey(t *testing.T) {
	base := []string{"template", "mintlify", chart, "--kube-version", kubeVersion}
	project := []string{"--set", "config.projects[0].id=abc"}
	placeholder := `config.projects[0].id is the placeholder "YOUR_PROJECT_ID": set your Mintlify project id`
	for _, c := range []struct {
		args []string
		want string
	}{
		{project, "an admin API key is required: set apiKey.existingSecret.name"},
		{append([]string{"--set", "apiKey.value=mint_x", "--set", "apiKey.existingSecret.name=s"}, project...), "set either apiKey.existingSecret.name or apiKey.value, not both"},
		// The default project id is a placeholder, refused like a missing
		// key; with neither set, both are named.
		{[]string{"--set", "apiKey.value=mint_x"}, placeholder},
		{nil, "an admin API key is required: set apiKey.existingSecret.name (a Secret holding it) or apiKey.value; " + placeholder},
		{[]string{"--set", "apiKey.value=mint_x", "--set", "config.projects[0].id=YOUR_PROJECT_ID"}, `config.projects[0].id is the placeholder "YOUR_PROJECT_ID"`},
		{[]string{"--set", "apiKey.value=mint_x", "--set", "config.projects[0].id=your-project-id"}, `config.projects[0].id is the placeholder "your-project-id"`},
		{[]string{"--set", "apiKey.value=mint_x", "--set-json", `config.projects=[{"id":"abc"},{"name":"docs"}]`}, "config.projects[1].id is empty"},
		{[]string{"--set", "apiKey.value=mint_x", "--set-json", `config.projects=[]`}, "config.projects is empty"},
		{append([]string{"--set", "apiKey.value=mint_x", "--set", "replicas=2"}, project...), "additional properties 'replicas' not allowed"},
		{append([]string{"--set", "apiKey.value=mint_x", "--set", "replicaCount=2"}, project...), "additional properties 'replicaCount' not allowed"},
		{append([]string{"--set", "apiKey.value=mint_x", "--set", "service.port=web"}, project...), "service.port"},
		{append([]string{"--set", "apiKey.value=mint_x", "--set", "persistence.mountPath=data"}, project...), "persistence.mountPath"},
	} {
		out, err := helm(t, append(slices.Clone(base), c.args...)...)
		if err == nil || !strings.Contains(out+err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// TestValuesDocumented: the chart's README has a row for every value of
// values.yaml, and none for a value that does not exist.
func TestValuesDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(chart, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(chart, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Za-z0-9_.]+)` \\|").FindAllStringSubmatch(string(readme), -1) {
		documented[m[1]] = true
	}
	// A value is documented by its own row or by its parent's (free-form
	// maps such as config or resources).
	var walk func(prefix string, v map[string]any)
	n := 0
	walk = func(prefix string, v map[string]any) {
		for k, val := range v {
			p := prefix + k
			if documented[p] {
				n++
				continue
			}
			sub, ok := val.(map[string]any)
			if !ok || len(sub) == 0 {
				t.Errorf("README.md has no row for %s", p)
				continue
			}
			walk(p+".", sub)
		}
	}
	walk("", values)
	if n < 40 {
		t.Errorf("only %d values documented", n)
	}
	for p := range documented {
		var cur any = values
		for _, part := range strings.Split(p, ".") {
			m, ok := cur.(map[string]any)
			if !ok {
				cur = nil
				break
			}
			cur, ok = m[part]
			if !ok {
				t.Errorf("README.md documents %s, which values.yaml does not have", p)
				break
			}
		}
	}
}
