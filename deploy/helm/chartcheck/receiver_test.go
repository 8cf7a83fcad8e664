package chartcheck

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
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
