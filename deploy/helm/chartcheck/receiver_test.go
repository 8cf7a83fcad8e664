package chartcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/mintlify-exporter/mintlify_exporter/config"
)

// TestReceiver: with receiver.enabled the pod gets a second container
// running `mintlify_exporter receiver` on the state volume, its routes
// from a ConfigMap, the token and its own key from Secrets (as files,
// never arguments), a Service port and, with the NetworkPolicy,
// ingress from Alertmanager on that port only. Off by default.
func TestReceiver(t *testing.T) {
	objs := decoded(t, chart, "-f", ci("receiver"))
	d := only[*appsv1.Deployment](t, objs, "Deployment")
	var rc *corev1.Container
	for i, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "receiver" {
			rc = &d.Spec.Template.Spec.Containers[i]
		}
	}
	if rc == nil {
		t.Fatal("no receiver container")
	}
	args := strings.Join(rc.Args, " ")
	for _, want := range []string{"receiver --config.file=/etc/mintlify/receiver/routes.yml", "--storage.path=/var/lib/mintlify_exporter/receiver-state.json",
		"--receiver.bearer-token-file=/etc/mintlify/receiver-token/token", "--receiver.act", "--mintlify.api-key-file=/etc/mintlify/receiver-key/api-key", "--web.listen-address=:10492"} {
		if !strings.Contains(args, want) {
			t.Errorf("receiver args %q lack %q", args, want)
		}
	}
	mounts := map[string]string{}
	for _, m := range rc.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range d.Spec.Template.Spec.Volumes {
		volumes[v.Name] = v
	}
	if v := volumes["receiver-token"]; v.Secret == nil || v.Secret.SecretName != "alertmanager-token" || mounts["receiver-token"] == "" {
		t.Error("the token's Secret is not mounted")
	}
	if v := volumes["receiver-key"]; v.Secret == nil || v.Secret.SecretName != "mintlify-receiver-key" || mounts["receiver-key"] == "" {
		t.Error("the receiver's key Secret is not mounted")
	}
	if mounts["state"] != "/var/lib/mintlify_exporter" || volumes["receiver-config"].ConfigMap == nil {
		t.Errorf("mounts %v", mounts)
	}
	cm := false
	for _, o := range objs["ConfigMap"] {
		c := o.(*corev1.ConfigMap)
		if strings.HasSuffix(c.Name, "-receiver") {
			cm = strings.Contains(c.Data["routes.yml"], "automation_id: wf_fill_gaps") && strings.Contains(c.Data["thumbs-down.tmpl"], "{{.Labels.path}}")
		}
	}
	if !cm {
		t.Error("no receiver ConfigMap with the routes and the template")
	}
	svc := only[*corev1.Service](t, objs, "Service")
	var port bool
	for _, p := range svc.Spec.Ports {
		port = port || (p.Name == "receiver" && p.Port == 10492)
	}
	if !port {
		t.Errorf("service ports %v: no receiver port", svc.Spec.Ports)
	}
	np := only[*networkingv1.NetworkPolicy](t, objs, "NetworkPolicy")
	var fromAM bool
	for _, in := range np.Spec.Ingress {
		if slices.Equal(ports(in.Ports), []string{"TCP/receiver"}) {
			for _, f := range in.From {
				fromAM = fromAM || (f.PodSelector != nil && f.PodSelector.MatchLabels["app.kubernetes.io/name"] == "alertmanager")
			}
		}
	}
	if !fromAM {
		t.Error("the NetworkPolicy does not let Alertmanager reach the receiver's port")
	}

	// Off by default: one container, no receiver port.
	def := decoded(t, chart, "-f", ci("default"))
	if cs := only[*appsv1.Deployment](t, def, "Deployment").Spec.Template.Spec.Containers; len(cs) != 1 {
		t.Errorf("default: %d containers", len(cs))
	}
}

// TestReceiverNeedsItsSecrets: enabled without routes or a token, or
// acting without its own key or without a persistent volume, fails to
// render and says what to set.
func TestReceiverNeedsItsSecrets(t *testing.T) {
	base := []string{"template", "mintlify", chart, "--kube-version", kubeVersion, "-f", ci("default"), "--set", "receiver.enabled=true"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "receiver.enabled needs receiver.routes"},
		{[]string{"--set", "receiver.routes.x=1"}, "receiver.enabled needs receiver.bearerToken.existingSecret.name"},
		{[]string{"--set", "receiver.routes.x=1", "--set", "receiver.bearerToken.existingSecret.name=t", "--set", "receiver.act=true", "--set", "persistence.enabled=true"}, "receiver.act needs receiver.apiKey.existingSecret.name"},
		{[]string{"--set", "receiver.routes.x=1", "--set", "receiver.bearerToken.existingSecret.name=t", "--set", "receiver.act=true", "--set", "receiver.apiKey.existingSecret.name=k"}, "receiver.act needs persistence.enabled"},
	} {
		out, err := helm(t, append(slices.Clone(base), c.args...)...)
		if err == nil || !strings.Contains(out+err.Error(), c.want) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// receiverContainer returns the Deployment's receiver container.
func receiverContainer(t *testing.T, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "receiver" {
			return c
		}
	}
	t.Fatal("no receiver container")
	return corev1.Container{}
}

// flagValue returns the value of the flag name among args.
func flagValue(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// notes renders the chart's NOTES.txt with args: helm template leaves it
// out, so a copy of the chart renders it into a ConfigMap.
func notes(t *testing.T, args ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mintlify-exporter")
	if err := os.CopyFS(dir, os.DirFS(chart)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(chart, "templates", "NOTES.txt"))
	if err != nil {
		t.Fatal(err)
	}
	wrap := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ tpl (.Files.Get \"files/NOTES.txt\") . | quote }}\n"
	for name, body := range map[string][]byte{"files/NOTES.txt": b, "templates/zz-notes.yaml": []byte(wrap)} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := renderChart(t, dir, append(args, "--show-only", "templates/zz-notes.yaml")...)
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(out), &cm); err != nil {
		t.Fatal(err)
	}
	return cm.Data["notes"]
}

// TestReceiverTracksItsJobs: with receiver.enabled the exporter's
// tracked_jobs_file is the file the receiver appends to, on the state
// volume both mount (config.global.tracked_jobs_file when set there,
// refused elsewhere), so /metrics shows the receiver's jobs. With an
// existing ConfigMap, which the chart cannot change, NOTES.txt says
// what to set in it. Without the receiver the configuration is left as
// it is.
func TestReceiverTracksItsJobs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "/var/lib/mintlify_exporter/tracked-jobs"},
		{[]string{"--set", "config.global.tracked_jobs_file=/var/lib/mintlify_exporter/jobs.txt"}, "/var/lib/mintlify_exporter/jobs.txt"},
		{[]string{"--set", "persistence.mountPath=/data/"}, "/data/tracked-jobs"},
	} {
		objs := decoded(t, chart, append([]string{"-f", ci("receiver")}, c.args...)...)
		var tracked string
		for _, o := range objs["ConfigMap"] {
			if y := o.(*corev1.ConfigMap).Data["mintlify.yml"]; y != "" {
				cfg, err := config.Parse([]byte(y))
				if err != nil {
					t.Fatalf("%v: %v", c.args, err)
				}
				tracked = cfg.Global.TrackedJobsFile
			}
		}
		d := only[*appsv1.Deployment](t, objs, "Deployment")
		rc := receiverContainer(t, d)
		if got := flagValue(rc.Args, "--receiver.tracked-jobs-file"); tracked != c.want || got != c.want {
			t.Errorf("%v: the exporter reads %q, the receiver writes %q; want both %q", c.args, tracked, got, c.want)
		}
		for _, ctr := range []corev1.Container{d.Spec.Template.Spec.Containers[0], rc} {
			var on bool
			for _, m := range ctr.VolumeMounts {
				on = on || (m.Name == "state" && strings.HasPrefix(c.want, strings.TrimSuffix(m.MountPath, "/")+"/"))
			}
			if !on {
				t.Errorf("%v: %s does not mount the state volume above %s", c.args, ctr.Name, c.want)
			}
		}
	}

	_, err := helm(t, "template", "mintlify", chart, "--kube-version", kubeVersion, "-f", ci("receiver"), "--set", "config.global.tracked_jobs_file=/tmp/jobs.txt")
	if want := `config.global.tracked_jobs_file "/tmp/jobs.txt" is not on the state volume (persistence.mountPath "/var/lib/mintlify_exporter")`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a tracked-jobs file off the state volume: %v, want an error with %q", err, want)
	}
	_, err = helm(t, "template", "mintlify", chart, "--kube-version", kubeVersion, "-f", ci("receiver"), "--set", "config.global.tracked_jobs_file=/var/lib/mintlify_exporter/../jobs.txt")
	if err == nil || !strings.Contains(err.Error(), "is not on the state volume") {
		t.Errorf("a tracked-jobs file above the state volume: %v, want it refused", err)
	}

	existing := []string{"-f", ci("receiver"), "--set", "existingConfigMap=my-config"}
	if n, want := notes(t, existing...), "my-config must set global.tracked_jobs_file: /var/lib/mintlify_exporter/tracked-jobs"; !strings.Contains(n, want) {
		t.Errorf("NOTES.txt with an existing ConfigMap and the receiver:\n%s\nwant %q", n, want)
	}

	for _, o := range decoded(t, chart, "-f", ci("default"))["ConfigMap"] {
		if y := o.(*corev1.ConfigMap).Data["mintlify.yml"]; strings.Contains(y, "tracked_jobs_file") {
			t.Errorf("without the receiver the configuration has a tracked_jobs_file:\n%s", y)
		}
	}
}

// TestReceiverProbesAndResources: the receiver's container is probed on
// its /-/healthy, on its own port and over the scheme webConfig implies,
// and has resources; both come from values (receiver.readinessProbe,
// livenessProbe, resources), which the schema checks as the exporter's.
func TestReceiverProbesAndResources(t *testing.T) {
	tls := filepath.Join(t.TempDir(), "tls-values.yaml")
	if err := os.WriteFile(tls, []byte("webConfig: |\n  tls_server_config: {cert_file: /c, key_file: /k}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args   []string
		scheme corev1.URIScheme
	}{
		{nil, corev1.URISchemeHTTP},
		{[]string{"-f", tls}, corev1.URISchemeHTTPS},
	} {
		rc := receiverContainer(t, only[*appsv1.Deployment](t, decoded(t, chart, append([]string{"-f", ci("receiver")}, c.args...)...), "Deployment"))
		for _, p := range []*corev1.Probe{rc.ReadinessProbe, rc.LivenessProbe} {
			if p == nil || p.HTTPGet == nil {
				t.Fatalf("%v: the receiver lacks a probe", c.args)
			}
			if got := fmt.Sprint(p.HTTPGet.Path, " ", p.HTTPGet.Port.String(), " ", p.HTTPGet.Scheme); got != "/-/healthy receiver "+string(c.scheme) {
				t.Errorf("%v: probe %s, want /-/healthy on the receiver's port over %s", c.args, got, c.scheme)
			}
		}
		want := corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
		}
		if !reflect.DeepEqual(rc.Resources, want) {
			t.Errorf("%v: receiver resources %v, want %v", c.args, rc.Resources, want)
		}
	}

	rc := receiverContainer(t, only[*appsv1.Deployment](t, decoded(t, chart, "-f", ci("receiver"),
		"--set", "receiver.livenessProbe.periodSeconds=7", "--set", "receiver.readinessProbe.failureThreshold=2", "--set", "receiver.resources.limits.memory=1Gi"), "Deployment"))
	if rc.LivenessProbe.PeriodSeconds != 7 || rc.ReadinessProbe.FailureThreshold != 2 || !rc.Resources.Limits.Memory().Equal(resource.MustParse("1Gi")) {
		t.Errorf("values do not land: liveness period %d, readiness failureThreshold %d, memory limit %v", rc.LivenessProbe.PeriodSeconds, rc.ReadinessProbe.FailureThreshold, rc.Resources.Limits.Memory())
	}

	base := []string{"template", "mintlify", chart, "--kube-version", kubeVersion, "-f", ci("receiver")}
	for _, c := range []struct{ set, want string }{
		{"receiver.readinessProbe.periodSecond=5", "at '/receiver/readinessProbe': additional properties 'periodSecond' not allowed"},
		{"receiver.livenessProbe.httpGet.paht=/", "at '/receiver/livenessProbe/httpGet': additional properties 'paht' not allowed"},
		{"receiver.resources.limit.memory=1Gi", "at '/receiver/resources': additional properties 'limit' not allowed"},
	} {
		if _, err := helm(t, append(slices.Clone(base), "--set", c.set)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %s: %v, want an error with %q", c.set, err, c.want)
		}
	}
}

// TestHelmTestChecksReceiver: with the receiver, `helm test` runs a
// second pod that asks the receiver's /-/healthy and its /metrics, over
// the scheme webConfig implies, and finds it acting or in dry run as
// receiver.act says; the NetworkPolicy lets that pod reach the
// receiver's port.
func TestHelmTestChecksReceiver(t *testing.T) {
	tls := filepath.Join(t.TempDir(), "tls-values.yaml")
	if err := os.WriteFile(tls, []byte("webConfig: |\n  tls_server_config: {cert_file: /c, key_file: /k}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args         []string
		scheme, mode string
	}{
		{nil, "http", "mintlify_receiver_acting 1"},
		{[]string{"--set", "receiver.act=false"}, "http", "mintlify_receiver_acting 0"},
		{[]string{"-f", tls}, "https", "mintlify_receiver_acting 1"},
	} {
		objs := decoded(t, chart, append([]string{"-f", ci("receiver")}, c.args...)...)
		var pod *corev1.Pod
		for _, o := range objs["Pod"] {
			if p := o.(*corev1.Pod); strings.HasSuffix(p.Name, "-test-receiver") {
				pod = p
			}
		}
		if pod == nil || len(objs["Pod"]) != 2 {
			t.Fatalf("%v: %d test pods, none for the receiver", c.args, len(objs["Pod"]))
		}
		if pod.Annotations["helm.sh/hook"] != "test" || pod.Labels["app.kubernetes.io/component"] != "helm-test" {
			t.Errorf("%v: the receiver's test pod is not a helm test: %v %v", c.args, pod.Annotations, pod.Labels)
		}
		cmd := strings.Join(pod.Spec.Containers[0].Command, " ")
		url := c.scheme + "://mintlify-mintlify-exporter:10492/"
		for _, want := range []string{url + "-/healthy", url + "metrics", c.mode} {
			if !strings.Contains(cmd, want) {
				t.Errorf("%v: the receiver's test pod runs %q, without %q", c.args, cmd, want)
			}
		}
		if sc := pod.Spec.Containers[0].SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%v: the receiver's test pod has a writable root", c.args)
		}
		np := only[*networkingv1.NetworkPolicy](t, objs, "NetworkPolicy")
		var admitted bool
		for _, in := range np.Spec.Ingress {
			if slices.Contains(ports(in.Ports), "TCP/receiver") {
				for _, f := range in.From {
					admitted = admitted || (f.PodSelector != nil && f.NamespaceSelector == nil && selects(t, f.PodSelector, pod.Labels))
				}
			}
		}
		if !admitted {
			t.Errorf("%v: the NetworkPolicy keeps the test pod from the receiver's port", c.args)
		}
	}
}

// TestReceiverExample: the chart's README shows the values that turn the
// receiver on, which render (with its values file) into a receiver that
// acts with its key and token, and Alertmanager's webhook configuration,
// whose URL is the release's Service and receiver port. NOTES.txt shows
// the same URL and credentials file for the release, says when the
// receiver only dry-runs, and without it names receiver.enabled.
func TestReceiverExample(t *testing.T) {
	readme := filepath.Join(chart, "README.md")
	var example, values, alertmanager string
	for _, y := range fences(t, readme, "yaml") {
		switch {
		case strings.Contains(y, "webhook_configs:"):
			alertmanager = y
		case strings.Contains(y, "receiver:"):
			values = y
		case example == "" && !strings.Contains(y, "global:"):
			example = y
		}
	}
	if values == "" || alertmanager == "" {
		t.Fatal("the chart's README shows no receiver values or no Alertmanager configuration")
	}
	dir := t.TempDir()
	var args []string
	for i, y := range []string{example, values} {
		f := filepath.Join(dir, fmt.Sprintf("%d-values.yaml", i))
		if err := os.WriteFile(f, []byte(strings.ReplaceAll(y, "YOUR_PROJECT_ID", "a1b2c3")), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-f", f)
	}
	objs := decoded(t, chart, args...)
	rc := receiverContainer(t, only[*appsv1.Deployment](t, objs, "Deployment"))
	if !slices.Contains(rc.Args, "--receiver.act") {
		t.Errorf("the README's receiver does not act: %v", rc.Args)
	}
	svc := only[*corev1.Service](t, objs, "Service")
	var port int32
	for _, p := range svc.Spec.Ports {
		if p.Name == "receiver" {
			port = p.Port
		}
	}
	url := fmt.Sprintf("http://%s.%s.svc:%d/webhook", svc.Name, svc.Namespace, port)

	var am struct {
		Receivers []struct {
			WebhookConfigs []struct {
				URL        string `json:"url"`
				HTTPConfig struct {
					Authorization struct {
						CredentialsFile string `json:"credentials_file"`
					} `json:"authorization"`
				} `json:"http_config"`
			} `json:"webhook_configs"`
		} `json:"receivers"`
	}
	if err := yaml.Unmarshal([]byte(alertmanager), &am); err != nil || len(am.Receivers) != 1 || len(am.Receivers[0].WebhookConfigs) != 1 {
		t.Fatalf("the README's Alertmanager configuration: %v\n%s", err, alertmanager)
	}
	if wc := am.Receivers[0].WebhookConfigs[0]; wc.URL != url || wc.HTTPConfig.Authorization.CredentialsFile == "" {
		t.Errorf("the README's webhook: %q with credentials file %q, want %q and a credentials file", wc.URL, wc.HTTPConfig.Authorization.CredentialsFile, url)
	}

	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"-f", ci("receiver")}, []string{"url: " + url, "credentials_file: /etc/alertmanager/secrets/alertmanager-token/token"}, []string{"dry run"}},
		{[]string{"-f", ci("receiver"), "--set", "receiver.act=false"}, []string{"url: " + url, "dry run"}, nil},
		{[]string{"-f", ci("default")}, []string{"receiver.enabled"}, []string{"webhook"}},
	} {
		n := notes(t, c.args...)
		for _, w := range c.want {
			if !strings.Contains(n, w) {
				t.Errorf("%v: NOTES.txt lacks %q:\n%s", c.args, w, n)
			}
		}
		for _, w := range c.not {
			if strings.Contains(n, w) {
				t.Errorf("%v: NOTES.txt says %q:\n%s", c.args, w, n)
			}
		}
	}
}

// TestReceiverScraped: with the receiver, the ServiceMonitor scrapes its
// port too, as job mintlify_receiver (the receiver alerts' selector), and
// the NetworkPolicy lets the scrapers reach that port.
func TestReceiverScraped(t *testing.T) {
	objs := decoded(t, chart, "-f", ci("receiver"), "--set", "serviceMonitor.enabled=true", "--set", "networkPolicy.enabled=true")
	sm := only[*monitoringv1.ServiceMonitor](t, objs, "ServiceMonitor")
	var scraped []string
	for _, e := range sm.Spec.Endpoints {
		scraped = append(scraped, e.Port)
		job := ""
		for _, r := range e.RelabelConfigs {
			if r.TargetLabel == "job" && r.Replacement != nil {
				job = *r.Replacement
			}
		}
		if want := map[string]string{"http": "", "receiver": "mintlify_receiver"}[e.Port]; job != want || e.Path != "/metrics" {
			t.Errorf("endpoint %s: path %s, job relabelled to %q, want /metrics and %q", e.Port, e.Path, job, want)
		}
	}
	if !slices.Equal(scraped, []string{"http", "receiver"}) {
		t.Errorf("ServiceMonitor scrapes ports %v, want http and receiver", scraped)
	}
	np := only[*networkingv1.NetworkPolicy](t, objs, "NetworkPolicy")
	if got := ports(np.Spec.Ingress[0].Ports); !slices.Equal(got, []string{"TCP/http", "TCP/receiver"}) {
		t.Errorf("the scrapers reach ports %v, want http and receiver", got)
	}
	sm = only[*monitoringv1.ServiceMonitor](t, decoded(t, chart, "-f", ci("default"), "--set", "serviceMonitor.enabled=true"), "ServiceMonitor")
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "http" {
		t.Errorf("without the receiver the ServiceMonitor scrapes %+v, want the http port alone", sm.Spec.Endpoints)
	}
}
