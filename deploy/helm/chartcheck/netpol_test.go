package chartcheck

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selects reports whether the selector s matches the labels l.
func selects(t *testing.T, s *metav1.LabelSelector, l map[string]string) bool {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel.Matches(labels.Set(l))
}

// ports lists a rule's ports as "PROTO/port".
func ports(ps []networkingv1.NetworkPolicyPort) []string {
	var out []string
	for _, p := range ps {
		out = append(out, string(*p.Protocol)+"/"+p.Port.String())
	}
	return out
}

// TestNetworkPolicy: the policy applies to the exporter's pod and not to
// the `helm test` pod; it lets in only Prometheus and the test pod, on
// the container's port, and lets out only DNS (port 53) and the API's
// port, taken from the configuration's api_url.
func TestNetworkPolicy(t *testing.T) {
	objs := decoded(t, chart, "-f", ci("networkpolicy"))
	np := only[*networkingv1.NetworkPolicy](t, objs, "NetworkPolicy")
	d := only[*appsv1.Deployment](t, objs, "Deployment")
	pod := only[*corev1.Pod](t, objs, "Pod")
	if !selects(t, &np.Spec.PodSelector, d.Spec.Template.Labels) {
		t.Error("the policy does not apply to the exporter's pod")
	}
	if selects(t, &np.Spec.PodSelector, pod.Labels) {
		t.Error("the policy applies to the helm test pod, which would lose its way to the exporter")
	}
	if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
		t.Errorf("policy types %v", np.Spec.PolicyTypes)
	}

	if len(np.Spec.Ingress) != 1 {
		t.Fatalf("%d ingress rules, want 1", len(np.Spec.Ingress))
	}
	in := np.Spec.Ingress[0]
	if got := ports(in.Ports); !slices.Equal(got, []string{"TCP/http"}) {
		t.Errorf("ingress ports %v, want the container's port only", got)
	}
	prometheus := map[string]string{"app.kubernetes.io/name": "prometheus"}
	var fromPrometheus, fromTest, fromOther bool
	for _, peer := range in.From {
		if peer.IPBlock != nil || peer.PodSelector == nil {
			t.Errorf("an ingress peer that is no pod: %+v", peer)
			continue
		}
		fromPrometheus = fromPrometheus || (selects(t, peer.PodSelector, prometheus) && peer.NamespaceSelector != nil)
		fromTest = fromTest || (selects(t, peer.PodSelector, pod.Labels) && peer.NamespaceSelector == nil)
		fromOther = fromOther || selects(t, peer.PodSelector, map[string]string{"app.kubernetes.io/name": "grafana"})
	}
	if !fromPrometheus || !fromTest || fromOther {
		t.Errorf("ingress from Prometheus %v, from the test pod %v, from another pod %v; want true, true, false", fromPrometheus, fromTest, fromOther)
	}

	if len(np.Spec.Egress) != 3 {
		t.Fatalf("%d egress rules, want DNS, the API and extraEgress", len(np.Spec.Egress))
	}
	dns, api, extra := np.Spec.Egress[0], np.Spec.Egress[1], np.Spec.Egress[2]
	if got := ports(dns.Ports); !slices.Equal(got, []string{"UDP/53", "TCP/53"}) {
		t.Errorf("DNS ports %v", got)
	}
	kubeDNS := map[string]string{"k8s-app": "kube-dns"}
	if len(dns.To) != 1 || dns.To[0].PodSelector == nil || !selects(t, dns.To[0].PodSelector, kubeDNS) ||
		!selects(t, dns.To[0].NamespaceSelector, map[string]string{"kubernetes.io/metadata.name": "kube-system"}) {
		t.Errorf("DNS peers %+v, want kube-dns in kube-system", dns.To)
	}
	if got := ports(api.Ports); !slices.Equal(got, []string{"TCP/8443"}) {
		t.Errorf("API ports %v, want api_url's port 8443", got)
	}
	var cidrs []string
	for _, p := range api.To {
		if p.IPBlock == nil || p.PodSelector != nil || p.NamespaceSelector != nil {
			t.Errorf("an API peer that is not an address block: %+v", p)
			continue
		}
		cidrs = append(cidrs, p.IPBlock.CIDR)
	}
	if !slices.Equal(cidrs, []string{"0.0.0.0/0", "::/0"}) {
		t.Errorf("API addresses %v", cidrs)
	}
	if got := ports(extra.Ports); !slices.Equal(got, []string{"TCP/3128"}) {
		t.Errorf("extraEgress ports %v", got)
	}
}

// TestNetworkPolicyAPIPort: the API's port is networkPolicy.apiPort when
// set, else api_url's: 443 for https (the default), 80 for http.
func TestNetworkPolicyAPIPort(t *testing.T) {
	base := []string{"-f", ci("default"), "--set", "networkPolicy.enabled=true"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "TCP/443"},
		{[]string{"--set", "config.global.api_url=http://mintlify-mock.monitoring:8080"}, "TCP/8080"},
		{[]string{"--set", "config.global.api_url=http://mintlify-mock.monitoring"}, "TCP/80"},
		{[]string{"--set", "networkPolicy.apiPort=3128"}, "TCP/3128"},
	} {
		np := only[*networkingv1.NetworkPolicy](t, decoded(t, chart, append(slices.Clone(base), c.args...)...), "NetworkPolicy")
		if got := ports(np.Spec.Egress[1].Ports); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%v: API ports %v, want %s", c.args, got, c.want)
		}
	}
}
