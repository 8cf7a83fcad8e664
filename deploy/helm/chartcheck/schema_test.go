package chartcheck

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestSchemaStrict: wherever the chart defines the shape of a value, the
// schema refuses a key it does not know, and so do the Kubernetes types
// the chart passes through (probes, resources, security contexts,
// tolerations, environment...), so that a typo fails at `helm install`
// instead of being rendered into the Deployment and ignored. A digest
// must be sha256: and 64 hex digits.
func TestSchemaStrict(t *testing.T) {
	base := []string{"template", "mintlify", chart, "--kube-version", kubeVersion,
		"--set", "apiKey.value=mint_x", "--set", "config.projects[0].id=abc"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "readinessProbe.periodSecond=5"}, "at '/readinessProbe': additional properties 'periodSecond' not allowed"},
		{[]string{"--set", "livenessProbe.httpGet.paht=/"}, "at '/livenessProbe/httpGet': additional properties 'paht' not allowed"},
		{[]string{"--set", "resources.limit.memory=1Gi"}, "at '/resources': additional properties 'limit' not allowed"},
		{[]string{"--set", "securityContext.runAsNonroot=true"}, "at '/securityContext': additional properties 'runAsNonroot' not allowed"},
		{[]string{"--set", "securityContext.capabilities.dorp[0]=ALL"}, "at '/securityContext/capabilities': additional properties 'dorp' not allowed"},
		{[]string{"--set", "podSecurityContext.fsgroup=1"}, "at '/podSecurityContext': additional properties 'fsgroup' not allowed"},
		{[]string{"--set-json", `tolerations=[{"key":"a","efect":"NoSchedule"}]`}, "additional properties 'efect' not allowed"},
		{[]string{"--set-json", `extraEnv=[{"name":"A","vaule":"1"}]`}, "additional properties 'vaule' not allowed"},
		{[]string{"--set-json", `extraVolumeMounts=[{"name":"a","mountpath":"/a"}]`}, "additional properties 'mountpath' not allowed"},
		{[]string{"--set", "affinity.nodeAfinity.x=1"}, "at '/affinity': additional properties 'nodeAfinity' not allowed"},
		{[]string{"--set", "serviceMonitor.tlsConfig.insecureSkipVerfy=true"}, "at '/serviceMonitor/tlsConfig': additional properties 'insecureSkipVerfy' not allowed"},
		{[]string{"--set", "image.digest=4d20"}, "at '/image/digest': '4d20' does not match pattern"},
		{[]string{"--set", "image.digest=sha256:" + strings.Repeat("A", 64)}, "at '/image/digest'"},
		{[]string{"--set", "image.digest=sha256:" + strings.Repeat("a", 63)}, "at '/image/digest'"},
	} {
		_, err := helm(t, append(slices.Clone(base), c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
		}
	}
	// What the schema allows renders: a digest, every probe field the
	// defaults use, a toleration.
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	objs := decoded(t, chart, "--set", "apiKey.value=mint_x", "--set", "config.projects[0].id=abc", "--set", "image.digest="+digest,
		"--set", "readinessProbe.failureThreshold=3", "--set-json", `tolerations=[{"key":"a","operator":"Exists","effect":"NoSchedule"}]`)
	d := only[*appsv1.Deployment](t, objs, "Deployment")
	c := d.Spec.Template.Spec.Containers[0]
	if want := "ghcr.io/" + publishedImage + "@" + digest; c.Image != want {
		t.Errorf("image %q, want %q", c.Image, want)
	}
	if c.ReadinessProbe.FailureThreshold != 3 || len(d.Spec.Template.Spec.Tolerations) != 1 {
		t.Errorf("readiness failureThreshold %d, tolerations %v", c.ReadinessProbe.FailureThreshold, d.Spec.Template.Spec.Tolerations)
	}
}

// TestUmbrellaErrors: inside an umbrella chart, the chart's own errors
// name the values as the umbrella's user sets them, under the
// dependency's name.
func TestUmbrellaErrors(t *testing.T) {
	dir := umbrella(t, `mintlify-exporter:
  config:
    projects:
      - id: YOUR_PROJECT_ID
        name: docs
`)
	_, err := helm(t, "template", "u", dir, "--kube-version", kubeVersion)
	for _, want := range []string{
		"an admin API key is required: set mintlify-exporter.apiKey.existingSecret.name (a Secret holding it) or mintlify-exporter.apiKey.value",
		`mintlify-exporter.config.projects[0].id is the placeholder "YOUR_PROJECT_ID"`,
		`--set-json 'mintlify-exporter.config.projects=[{"id":"...","name":"docs"}]'`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("umbrella with the placeholder and no key: %v, want an error with %q", err, want)
		}
	}
	// The chart on its own names them without a prefix.
	_, err = helm(t, "template", "m", chart, "--kube-version", kubeVersion)
	if err == nil || !strings.Contains(err.Error(), "or apiKey.value;") || strings.Contains(err.Error(), "mintlify-exporter.apiKey") {
		t.Errorf("the chart alone: %v, want the values named without a prefix", err)
	}
}

// TestHelmTestScheme: the `helm test` pod asks /-/healthy over the scheme
// the exporter serves: https when webConfig turns TLS on, else http.
func TestHelmTestScheme(t *testing.T) {
	for _, c := range []struct {
		values string
		want   string
	}{
		{"webconfig", "https://"},
		{"default", "http://"},
	} {
		pod := only[*corev1.Pod](t, decoded(t, chart, "-f", ci(c.values)), "Pod")
		cmd := strings.Join(pod.Spec.Containers[0].Command, " ")
		if !strings.Contains(cmd, " "+c.want) {
			t.Errorf("%s: the test pod runs %q, want a %s URL", c.values, cmd, c.want)
		}
	}
	// Basic auth without TLS stays http, probes included.
	objs := decoded(t, chart, "-f", ci("default"), "--set", "webConfig=basic_auth_users: {a: b}")
	if cmd := strings.Join(only[*corev1.Pod](t, objs, "Pod").Spec.Containers[0].Command, " "); !strings.Contains(cmd, " http://") {
		t.Errorf("basic auth only: the test pod runs %q, want http", cmd)
	}
	if s := only[*appsv1.Deployment](t, objs, "Deployment").Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Scheme; s != corev1.URISchemeHTTP {
		t.Errorf("basic auth only: probe scheme %s, want HTTP", s)
	}
}
