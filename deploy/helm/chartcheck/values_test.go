package chartcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// decoded renders with args and decodes every object strictly, by kind.
func decoded(t *testing.T, dir string, args ...string) map[string][]any {
	t.Helper()
	byKind := map[string][]any{}
	for _, o := range objects(t, renderChart(t, dir, args...)) {
		v, err := decode(o)
		if err != nil {
			t.Fatalf("%s: %v", o.kind, err)
		}
		byKind[o.kind] = append(byKind[o.kind], v)
	}
	return byKind
}

// only returns the one object of kind k.
func only[T any](t *testing.T, byKind map[string][]any, k string) T {
	t.Helper()
	if len(byKind[k]) != 1 {
		t.Fatalf("%d objects of kind %s, want 1", len(byKind[k]), k)
	}
	return byKind[k][0].(T)
}

func ci(name string) string { return filepath.Join(chart, "ci", name+"-values.yaml") }

// chartAppVersion is Chart.yaml's appVersion.
func chartAppVersion(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(chart, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil || c.AppVersion == "" {
		t.Fatalf("Chart.yaml appVersion: %q %v", c.AppVersion, err)
	}
	return c.AppVersion
}

// publishedImage is the repository the release workflow pushes each
// release's image to (.github/workflows/release.yml), tagged v and the
// version; the chart runs it by default.
const publishedImage = "mintlify-exporter/mintlify_exporter"

// TestDefaults: without other values than a key and a project, the image
// is the one published for the chart's appVersion (ghcr.io, tag v and the
// appVersion), the test pod's is Docker Hub's busybox, the
// container has the kustomize Deployment's resources, and the probes are
// /-/healthy over HTTP on the container's port.
func TestDefaults(t *testing.T) {
	objs := decoded(t, chart, "-f", ci("default"))
	d := only[*appsv1.Deployment](t, objs, "Deployment")
	c := d.Spec.Template.Spec.Containers[0]
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	check("image", c.Image, "ghcr.io/"+publishedImage+":v"+chartAppVersion(t))
	check("test image", only[*corev1.Pod](t, objs, "Pod").Spec.Containers[0].Image, "docker.io/library/busybox:1.36")
	check("resources", c.Resources, corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
	})
	for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil {
			t.Fatal("a probe is missing")
		}
		check("probe", fmt.Sprint(p.HTTPGet.Path, " ", p.HTTPGet.Port.String(), " ", p.HTTPGet.Scheme), "/-/healthy http HTTP")
	}
	check("liveness delay", c.LivenessProbe.InitialDelaySeconds, int32(10))
	check("revisionHistoryLimit", *d.Spec.RevisionHistoryLimit, int32(10))
	check("storage", c.Args[1], "--storage.path=/var/lib/mintlify_exporter/state.json")
	check("pull secrets", d.Spec.Template.Spec.ImagePullSecrets, []corev1.LocalObjectReference(nil))
	if objs["NetworkPolicy"] != nil {
		t.Error("a NetworkPolicy by default")
	}
}

// TestExtraValues: each value of ci/extras-values.yaml lands where it
// belongs.
func TestExtraValues(t *testing.T) {
	objs := decoded(t, chart, "-f", ci("extras"))
	check := func(what string, got, want any) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %#v, want %#v", what, got, want)
		}
	}
	d := only[*appsv1.Deployment](t, objs, "Deployment")
	spec := d.Spec.Template.Spec
	c := spec.Containers[0]
	check("image (global.imageRegistry)", c.Image, "mirror.example.com/"+publishedImage+":v"+chartAppVersion(t))
	check("pull secrets (global first, once each)", spec.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "mirror-pull"}, {Name: "shared-pull"}, {Name: "own-pull"}})
	check("deployment annotation", d.Annotations["example.com/owner"], "docs-team")
	check("deployment label", d.Labels["tier"], "monitoring")
	if _, ok := spec.Containers[0].Resources.Limits[corev1.ResourceMemory]; !ok {
		t.Error("the default resources are gone")
	}
	if _, ok := d.Spec.Template.Labels["tier"]; ok {
		t.Error("deploymentLabels reached the pod")
	}
	check("revisionHistoryLimit", *d.Spec.RevisionHistoryLimit, int32(3))
	check("readiness", [3]any{c.ReadinessProbe.HTTPGet.Port.String(), c.ReadinessProbe.PeriodSeconds, c.ReadinessProbe.FailureThreshold}, [3]any{"http", int32(15), int32(2)})
	check("liveness", [3]any{c.LivenessProbe.PeriodSeconds, c.LivenessProbe.TimeoutSeconds, c.LivenessProbe.InitialDelaySeconds}, [3]any{int32(60), int32(10), int32(10)}) // maps merge: the default delay stays
	check("storage", c.Args[1], "--storage.path=/data/mintlify/state.json")
	for _, m := range c.VolumeMounts {
		if m.Name == "state" {
			check("state mount", m.MountPath, "/data/mintlify")
		}
	}
	check("init containers", names(spec.InitContainers), []string{"wait-config"})
	check("init image (tpl)", spec.InitContainers[0].Image, "mirror.example.com/library/busybox:1.36")
	check("containers", names(spec.Containers), []string{"mintlify-exporter", "log-shipper"})
	check("sidecar args (tpl)", spec.Containers[1].Args, []string{"--source=mintlify"})

	svc := only[*corev1.Service](t, objs, "Service")
	check("service annotation", svc.Annotations["example.com/scrape-note"], "served from cache")
	check("service label", svc.Labels["exposure"], "internal")

	sm := only[*monitoringv1.ServiceMonitor](t, objs, "ServiceMonitor")
	ep := sm.Spec.Endpoints[0]
	check("honorLabels", ep.HonorLabels, true)
	check("targetLabels", sm.Spec.TargetLabels, []string{"exposure"})
	if len(ep.MetricRelabelConfigs) != 1 || ep.MetricRelabelConfigs[0].Action != "drop" {
		t.Errorf("metricRelabelings: %+v", ep.MetricRelabelConfigs)
	}
	check("ServiceMonitor namespaces", sm.Spec.NamespaceSelector.MatchNames, []string{"observability"})

	pr := only[*monitoringv1.PrometheusRule](t, objs, "PrometheusRule")
	last := pr.Spec.Groups[len(pr.Spec.Groups)-1]
	check("additional group", last.Name, "mintlify-mintlify-exporter-additional")
	if len(last.Rules) != 2 || last.Rules[0].Alert != "MintlifyPageViewsFlat" || last.Rules[1].Record != "mintlify:page_views:rate1h" {
		t.Errorf("additional rules: %+v", last.Rules)
	}
	if len(pr.Spec.Groups) < 3 {
		t.Errorf("the shipped groups are gone: %d groups", len(pr.Spec.Groups))
	}

	pvc := only[*corev1.PersistentVolumeClaim](t, objs, "PersistentVolumeClaim")
	check("claim annotation", pvc.Annotations["helm.sh/resource-policy"], "keep")

	pod := only[*corev1.Pod](t, objs, "Pod")
	check("test image (global.imageRegistry)", pod.Spec.Containers[0].Image, "mirror.example.com/tools/busybox:1.37")
	check("test pull secrets", pod.Spec.ImagePullSecrets, spec.ImagePullSecrets)

	// extraManifests, a map and a string, both through tpl.
	var extra []string
	for _, k := range []string{"ConfigMap", "ServiceAccount"} {
		for _, o := range objs[k] {
			extra = append(extra, k+" "+o.(metav1.Object).GetName())
		}
	}
	for _, want := range []string{"ConfigMap mintlify-mintlify-exporter-extra", "ServiceAccount mintlify-reader"} {
		if !slices.Contains(extra, want) {
			t.Errorf("extraManifests: no %s in %v", want, extra)
		}
	}

	// namespaceOverride: every object is in its namespace.
	for k, list := range objs {
		for _, o := range list {
			if ns := o.(metav1.Object).GetNamespace(); ns != "observability" {
				t.Errorf("a %s in namespace %q, want observability", k, ns)
			}
		}
	}
}

func names(cs []corev1.Container) []string {
	var n []string
	for _, c := range cs {
		n = append(n, c.Name)
	}
	return n
}

// TestProbeScheme: the probes follow webConfig's TLS (HTTPS with
// ci/webconfig-values.yaml), and an explicit scheme wins.
func TestProbeScheme(t *testing.T) {
	for _, c := range []struct {
		args []string
		want corev1.URIScheme
	}{
		{[]string{"-f", ci("webconfig")}, corev1.URISchemeHTTPS},
		{[]string{"-f", ci("webconfig"), "--set", "livenessProbe.httpGet.scheme=HTTP", "--set", "readinessProbe.httpGet.scheme=HTTP"}, corev1.URISchemeHTTP},
		{[]string{"-f", ci("default")}, corev1.URISchemeHTTP},
	} {
		c0 := only[*appsv1.Deployment](t, decoded(t, chart, c.args...), "Deployment").Spec.Template.Spec.Containers[0]
		if c0.ReadinessProbe.HTTPGet.Scheme != c.want || c0.LivenessProbe.HTTPGet.Scheme != c.want {
			t.Errorf("%v: schemes %s and %s, want %s", c.args, c0.ReadinessProbe.HTTPGet.Scheme, c0.LivenessProbe.HTTPGet.Scheme, c.want)
		}
	}
}
