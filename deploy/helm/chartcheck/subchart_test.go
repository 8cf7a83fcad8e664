package chartcheck

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// umbrella writes, in a temporary directory, a chart that depends on this
// one through a file:// repository and has the given values, runs `helm
// dependency update` (no network: the only repository is the directory)
// and returns the umbrella's directory.
func umbrella(t *testing.T, values string) string {
	t.Helper()
	abs, err := filepath.Abs(chart)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "umbrella")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	chartYAML := `apiVersion: v2
name: umbrella
version: 1.0.0
dependencies:
  - name: mintlify-exporter
    version: ">=0.0.0-0"
    repository: file://` + abs + "\n"
	for name, body := range map[string]string{"Chart.yaml": chartYAML, "values.yaml": values} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// helm's own cache and repository list stay in the test's directory.
	home := t.TempDir()
	t.Setenv("HELM_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("HELM_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("HELM_DATA_HOME", filepath.Join(home, "data"))
	if out, err := helm(t, "dependency", "update", "--skip-refresh", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "charts", "mintlify-exporter-*.tgz")); len(m) != 1 {
		t.Fatalf("helm dependency update left %v in charts/", m)
	}
	return dir
}

const umbrellaChild = `mintlify-exporter:
  apiKey:
    existingSecret:
      name: mintlify-key
  config:
    projects:
      - id: umbrella-docs
        name: docs
`

// TestSubchart: the chart renders as the dependency of an umbrella chart,
// whether the umbrella sets globals or not (helm hands every subchart a
// global map, which the schema must allow), and honours
// global.imageRegistry and global.imagePullSecrets; globals meant for
// other charts are ignored. Every object decodes strictly.
func TestSubchart(t *testing.T) {
	t.Run("no globals", func(t *testing.T) {
		objs := decoded(t, umbrella(t, umbrellaChild))
		d := only[*appsv1.Deployment](t, objs, "Deployment")
		if got, want := d.Spec.Template.Spec.Containers[0].Image, "ghcr.io/"+publishedImage+":v"+chartAppVersion(t); got != want {
			t.Errorf("image %q, want %q", got, want)
		}
		if d.Namespace != "monitoring" {
			t.Errorf("namespace %q", d.Namespace)
		}
	})
	t.Run("globals", func(t *testing.T) {
		objs := decoded(t, umbrella(t, `global:
  imageRegistry: umbrella.example.com
  imagePullSecrets:
    - umbrella-pull
  storageClass: fast   # another chart's global
`+umbrellaChild+`  image:
    registry: ignored.example.com
`))
		d := only[*appsv1.Deployment](t, objs, "Deployment")
		if got := d.Spec.Template.Spec.Containers[0].Image; !strings.HasPrefix(got, "umbrella.example.com/"+publishedImage+":") {
			t.Errorf("image %q: global.imageRegistry not used", got)
		}
		if got, want := d.Spec.Template.Spec.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "umbrella-pull"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("pull secrets %v, want %v", got, want)
		}
		if got := only[*corev1.Pod](t, objs, "Pod").Spec.Containers[0].Image; got != "umbrella.example.com/library/busybox:1.36" {
			t.Errorf("test image %q: global.imageRegistry not used", got)
		}
	})
}
