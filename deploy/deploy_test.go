package deploy_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/deploy"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

func TestMain(m *testing.M) {
	os.Exit(toolcheck.Wrap(m, "deploy").Run())
}

const (
	namespace   = "monitoring"
	portName    = "http"
	port        = 10491
	healthPath  = "/-/healthy"
	nonRootUID  = 65532 // the image's user (Dockerfile)
	unitName    = "mintlify_exporter.service"
	unitBinary  = "/usr/local/bin/mintlify_exporter"
	unitConfig  = "/etc/mintlify_exporter/mintlify.yml"
	stateDir    = "mintlify_exporter"
	credentials = "/run/credentials/" + unitName // systemd's $CREDENTIALS_DIRECTORY
)

// check returns every problem it finds in the deployment files, one
// sentence each; none means they are consistent.
func check(m manifests) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }

	p = append(p, checkSystemd(m)...)

	one := func(kind string, n int) bool {
		if n != 1 {
			add("want exactly one %s, found %d", kind, n)
		}
		return n == 1
	}
	okD := one("Deployment", len(m.Deployments))
	okS := one("Service", len(m.Services))
	okM := one("ServiceMonitor", len(m.ServiceMonitors))
	okR := one("PrometheusRule", len(m.PrometheusRules))
	okC := one("ConfigMap", len(m.ConfigMaps))
	okK := one("Secret", len(m.Secrets))

	metas := map[string]objectMeta{}
	apiVersions := map[string]string{}
	if okD {
		metas["Deployment"], apiVersions["Deployment"] = m.Deployments[0].Metadata, m.Deployments[0].APIVersion
	}
	if okS {
		metas["Service"], apiVersions["Service"] = m.Services[0].Metadata, m.Services[0].APIVersion
	}
	if okM {
		metas["ServiceMonitor"], apiVersions["ServiceMonitor"] = m.ServiceMonitors[0].Metadata, m.ServiceMonitors[0].APIVersion
	}
	if okR {
		metas["PrometheusRule"], apiVersions["PrometheusRule"] = m.PrometheusRules[0].Metadata, m.PrometheusRules[0].APIVersion
	}
	if okC {
		metas["ConfigMap"], apiVersions["ConfigMap"] = m.ConfigMaps[0].Metadata, m.ConfigMaps[0].APIVersion
	}
	if okK {
		metas["Secret"], apiVersions["Secret"] = m.Secrets[0].Metadata, m.Secrets[0].APIVersion
	}
	wantAPI := map[string]string{
		"Deployment": "apps/v1", "Service": "v1", "ConfigMap": "v1", "Secret": "v1",
		"ServiceMonitor": "monitoring.coreos.com/v1", "PrometheusRule": "monitoring.coreos.com/v1",
	}
	for _, kind := range sortedKeys(metas) {
		if apiVersions[kind] != wantAPI[kind] {
			add("%s: apiVersion is %q, want %q", kind, apiVersions[kind], wantAPI[kind])
		}
		if metas[kind].Name == "" {
			add("%s: metadata.name is empty", kind)
		}
		if metas[kind].Namespace != namespace {
			add("%s %s: metadata.namespace is %q, want %q", kind, metas[kind].Name, metas[kind].Namespace, namespace)
		}
	}

	if okR {
		p = append(p, checkRules(m.PrometheusRules[0], m.Alerts, m.Recording)...)
	}
	if !okD || !okS || !okM || !okC || !okK {
		return p // the cross-checks below need one of each
	}
	d, svc, sm, cm, sec := m.Deployments[0], m.Services[0], m.ServiceMonitors[0], m.ConfigMaps[0], m.Secrets[0]
	pod := d.Spec.Template

	// Deployment: selector, replicas, the container.
	if len(d.Spec.Selector.MatchLabels) == 0 {
		add("Deployment: spec.selector.matchLabels is empty")
	} else if !subset(d.Spec.Selector.MatchLabels, pod.Metadata.Labels) {
		add("Deployment: spec.selector.matchLabels %v do not match the pod labels %v", d.Spec.Selector.MatchLabels, pod.Metadata.Labels)
	}
	replicas := 1
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	if len(pod.Spec.Containers) != 1 {
		add("Deployment: want one container, found %d", len(pod.Spec.Containers))
		return p
	}
	c := pod.Spec.Containers[0]
	if c.Image == "" {
		add("Deployment: the container has no image")
	}
	var httpPort *containerPort
	for i, cp := range c.Ports {
		if cp.Name == portName {
			httpPort = &c.Ports[i]
		}
	}
	if httpPort == nil {
		add("Deployment: no container port named %q", portName)
	} else if httpPort.ContainerPort != port {
		add("Deployment: container port %q is %d, want %d (the exporter's default --web.listen-address)", portName, httpPort.ContainerPort, port)
	}
	for _, pr := range []struct {
		name string
		p    *probe
	}{{"readinessProbe", c.ReadinessProbe}, {"livenessProbe", c.LivenessProbe}} {
		switch {
		case pr.p == nil:
			add("Deployment: no %s", pr.name)
		case pr.p.HTTPGet == nil:
			add("Deployment: %s is not an httpGet probe", pr.name)
		default:
			if pr.p.HTTPGet.Path != healthPath {
				add("Deployment: %s path is %q, want %q", pr.name, pr.p.HTTPGet.Path, healthPath)
			}
			if pr.p.HTTPGet.Port != portName {
				add("Deployment: %s port is %q, want the port name %q", pr.name, pr.p.HTTPGet.Port, portName)
			}
		}
	}
	if c.Resources.Requests["cpu"] == "" || c.Resources.Requests["memory"] == "" {
		add("Deployment: resources.requests needs cpu and memory, has %v", c.Resources.Requests)
	}
	if c.Resources.Limits["memory"] == "" {
		add("Deployment: resources.limits.memory is not set")
	}
	p = append(p, checkSecurity(pod.Spec.SecurityContext, c.SecurityContext)...)

	// Volumes: what is mounted where.
	vols := map[string]volume{}
	for _, v := range pod.Spec.Volumes {
		vols[v.Name] = v
	}
	// files maps every file a ConfigMap or Secret volume puts in the
	// container to the object and key it comes from.
	type source struct{ kind, name, key string }
	files := map[string]source{}
	var writable []string // mount paths the container may write to
	for _, vm := range c.VolumeMounts {
		v, ok := vols[vm.Name]
		if !ok {
			add("Deployment: volumeMount %q names no volume", vm.Name)
			continue
		}
		if vm.SubPath != "" && (v.ConfigMap != nil || v.Secret != nil) {
			// subPath mounts are never updated: a rotated key or edited
			// config would not reach the pod.
			add("Deployment: volumeMount %q uses subPath; mount the whole volume so updates reach the pod", vm.Name)
			continue
		}
		switch {
		case v.ConfigMap != nil:
			if !vm.ReadOnly {
				add("Deployment: the ConfigMap volume %q is not mounted readOnly", vm.Name)
			}
			if v.ConfigMap.Name == cm.Metadata.Name {
				for key, file := range projected(v.ConfigMap.Items, sortedKeys(cm.Data)) {
					files[path.Join(vm.MountPath, file)] = source{"ConfigMap", cm.Metadata.Name, key}
				}
			}
		case v.Secret != nil:
			if !vm.ReadOnly {
				add("Deployment: the Secret volume %q is not mounted readOnly", vm.Name)
			}
			if v.Secret.SecretName == sec.Metadata.Name {
				for key, file := range projected(v.Secret.Items, sortedKeys(sec.keys())) {
					files[path.Join(vm.MountPath, file)] = source{"Secret", sec.Metadata.Name, key}
				}
			}
		case v.EmptyDir != nil, v.PersistentVolumeClaim != nil && !v.PersistentVolumeClaim.ReadOnly:
			if !vm.ReadOnly {
				writable = append(writable, vm.MountPath)
			}
		}
	}

	// The configuration file: --config.file names a ConfigMap file that
	// parses, whose keys are files of the mounted Secret.
	var configFile string
	for _, a := range append(slices.Clone(c.Command), c.Args...) {
		if v, ok := strings.CutPrefix(a, "--config.file="); ok {
			configFile = v
		}
	}
	src, ok := files[configFile]
	switch {
	case configFile == "":
		add("Deployment: the container has no --config.file=FILE argument")
	case !ok || src.kind != "ConfigMap":
		add("Deployment: --config.file=%s is not a file of the mounted ConfigMap %s (mounted files: %v)", configFile, cm.Metadata.Name, sortedKeys(files))
	default:
		cfg, err := parseExample([]byte(cm.Data[src.key]))
		if err != nil {
			add("ConfigMap %s: %s does not load: %v", cm.Metadata.Name, src.key, err)
			break
		}
		for _, k := range cfg.Keys {
			switch s, ok := files[k.APIKeyFile]; {
			case k.APIKeyFile == "":
				add("ConfigMap: key %q does not read api_key_file; the Deployment provides the key as a file of the Secret %s", k.Name, sec.Metadata.Name)
			case !ok || s.kind != "Secret":
				add("ConfigMap: api_key_file %s of key %q is not a file of the mounted Secret %s (mounted files: %v)", k.APIKeyFile, k.Name, sec.Metadata.Name, sortedKeys(files))
			}
			if replicas > 1 && k.Share*float64(replicas) > 1+1e-9 {
				add("Deployment: %d replicas with share %g of key %q spend %g times the key's budget; set share <= 1/%d", replicas, k.Share, k.Name, k.Share*float64(replicas), replicas)
			}
		}
		if f := cfg.Global.TrackedJobsFile; f != "" {
			if !slices.ContainsFunc(writable, func(dir string) bool { return strings.HasPrefix(f, strings.TrimSuffix(dir, "/")+"/") }) {
				add("Deployment: tracked_jobs_file %s is on no writable volume (the root file system is read-only); writable mounts: %v", f, writable)
			}
		}
	}

	// Service → pods, and the port chain ServiceMonitor → Service → container.
	if len(svc.Spec.Selector) == 0 {
		add("Service: spec.selector is empty")
	} else if !subset(svc.Spec.Selector, pod.Metadata.Labels) {
		add("Service: selector %v does not match the pod labels %v", svc.Spec.Selector, pod.Metadata.Labels)
	}
	svcPorts := map[string]bool{}
	foundHTTP := false
	for _, sp := range svc.Spec.Ports {
		svcPorts[sp.Name] = true
		if sp.Name != portName {
			continue
		}
		foundHTTP = true
		if sp.TargetPort != portName {
			add("Service: port %q has targetPort %q, want the container port name %q", sp.Name, sp.TargetPort, portName)
		}
	}
	if !foundHTTP {
		add("Service: no port named %q", portName)
	}
	if len(sm.Spec.Selector.MatchLabels) == 0 {
		add("ServiceMonitor: spec.selector.matchLabels is empty")
	} else if !subset(sm.Spec.Selector.MatchLabels, svc.Metadata.Labels) {
		add("ServiceMonitor: selector %v does not match the Service labels %v", sm.Spec.Selector.MatchLabels, svc.Metadata.Labels)
	}
	if ns := sm.Spec.NamespaceSelector; ns != nil && !ns.Any && len(ns.MatchNames) > 0 && !slices.Contains(ns.MatchNames, svc.Metadata.Namespace) {
		add("ServiceMonitor: namespaceSelector %v leaves out the Service's namespace %s", ns.MatchNames, svc.Metadata.Namespace)
	}
	if len(sm.Spec.Endpoints) == 0 {
		add("ServiceMonitor: no endpoints")
	}
	for i, e := range sm.Spec.Endpoints {
		if e.Port != portName || !svcPorts[e.Port] {
			add("ServiceMonitor: endpoints[%d].port is %q, want the Service port name %q", i, e.Port, portName)
		}
		if e.Path != "" && e.Path != "/metrics" {
			add("ServiceMonitor: endpoints[%d].path is %q, want /metrics", i, e.Path)
		}
		interval, err1 := time.ParseDuration(e.Interval)
		timeout, err2 := time.ParseDuration(e.ScrapeTimeout)
		switch {
		case err1 != nil || err2 != nil:
			add("ServiceMonitor: endpoints[%d] needs interval and scrapeTimeout durations, has %q and %q", i, e.Interval, e.ScrapeTimeout)
		case timeout > interval:
			add("ServiceMonitor: endpoints[%d].scrapeTimeout %s is longer than the interval %s", i, e.ScrapeTimeout, e.Interval)
		}
	}
	return p
}

// checkSecurity checks the effective security context of the container.
func checkSecurity(pod podSecurityContext, c containerSecurityContext) []string {
	var p []string
	nonRoot := c.RunAsNonRoot
	if nonRoot == nil {
		nonRoot = pod.RunAsNonRoot
	}
	if nonRoot == nil || !*nonRoot {
		p = append(p, "Deployment: runAsNonRoot is not true")
	}
	uid := c.RunAsUser
	if uid == nil {
		uid = pod.RunAsUser
	}
	if uid == nil || *uid != nonRootUID {
		p = append(p, fmt.Sprintf("Deployment: runAsUser is not %d, the image's user", nonRootUID))
	}
	if c.ReadOnlyRootFilesystem == nil || !*c.ReadOnlyRootFilesystem {
		p = append(p, "Deployment: readOnlyRootFilesystem is not true")
	}
	if c.AllowPrivilegeEscalation == nil || *c.AllowPrivilegeEscalation {
		p = append(p, "Deployment: allowPrivilegeEscalation is not false")
	}
	if c.Privileged != nil && *c.Privileged {
		p = append(p, "Deployment: the container is privileged")
	}
	if !slices.Contains(c.Capabilities.Drop, "ALL") {
		p = append(p, fmt.Sprintf("Deployment: capabilities.drop is %v, want [ALL]", c.Capabilities.Drop))
	}
	if len(c.Capabilities.Add) > 0 {
		p = append(p, fmt.Sprintf("Deployment: capabilities.add is %v, want none", c.Capabilities.Add))
	}
	sp := c.SeccompProfile
	if sp == nil {
		sp = pod.SeccompProfile
	}
	if sp == nil || sp.Type != "RuntimeDefault" {
		p = append(p, "Deployment: seccompProfile is not RuntimeDefault")
	}
	return p
}

// checkRules compares the PrometheusRule's groups with the rule file's,
// after decoding both: same groups, rules, expressions and annotations.
func checkRules(r prometheusRule, files ...[]byte) []string {
	var all []any
	for _, b := range files {
		var file struct {
			Groups []any `yaml:"groups"`
		}
		if err := yaml.Unmarshal(b, &file); err != nil {
			return []string{fmt.Sprintf("dashboards/alerts.yml does not parse: %v", err)}
		}
		if len(file.Groups) == 0 {
			return []string{"dashboards/alerts.yml has no groups"}
		}
		all = append(all, file.Groups...)
	}
	if reflect.DeepEqual(r.Spec.Groups, all) {
		return nil
	}
	want, _ := yaml.Marshal(all)
	got, _ := yaml.Marshal(r.Spec.Groups)
	return []string{fmt.Sprintf("PrometheusRule: spec.groups differ from the groups of dashboards/alerts.yml (run go run ./deploy/kubernetes/gen); first difference: %s", firstDiff(string(got), string(want)))}
}

// checkSystemd checks the unit's command, hardening and key credential,
// and that the example configuration matches them.
func checkSystemd(m manifests) []string {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	u := m.Unit
	const svc = "Service"

	exec, _ := u.last(svc, "ExecStart")
	args := strings.Fields(exec)
	if len(args) == 0 || args[0] != unitBinary || !slices.Contains(args, "--config.file="+unitConfig) {
		add("unit: ExecStart is %q, want %s --config.file=%s", exec, unitBinary, unitConfig)
	}
	want := [][2]string{
		{"DynamicUser", "yes"},
		{"ProtectSystem", "strict"},
		{"ProtectHome", "yes"},
		{"NoNewPrivileges", "yes"},
		{"PrivateTmp", "yes"},
		{"PrivateDevices", "yes"},
		{"ProtectKernelTunables", "yes"},
		{"ProtectKernelModules", "yes"},
		{"ProtectControlGroups", "yes"},
		{"CapabilityBoundingSet", ""},
		{"StateDirectory", stateDir},
		{"ExecReload", "/bin/kill -HUP $MAINPID"},
		{"Restart", "on-failure"},
	}
	for _, w := range want {
		if v, ok := u.last(svc, w[0]); !ok || v != w[1] {
			add("unit: want %s=%s, have %q", w[0], w[1], u[svc][w[0]])
		}
	}
	fam := u.list(svc, "RestrictAddressFamilies")
	sort.Strings(fam)
	if !slices.Equal(fam, []string{"AF_INET", "AF_INET6", "AF_UNIX"}) {
		add("unit: RestrictAddressFamilies is %v, want AF_INET AF_INET6 AF_UNIX", fam)
	}
	if !slices.Contains(u.list(svc, "SystemCallFilter"), "@system-service") {
		add("unit: SystemCallFilter does not allow just @system-service")
	}
	if _, ok := u["Install"]["WantedBy"]; !ok {
		add("unit: no [Install] WantedBy, systemctl enable would do nothing")
	}

	// The key credential and the configuration that reads it.
	cred, _ := u.last(svc, "LoadCredential")
	credName, credSrc, _ := strings.Cut(cred, ":")
	if credName == "" || !strings.HasPrefix(credSrc, "/etc/mintlify_exporter/") {
		add("unit: LoadCredential is %q, want NAME:/etc/mintlify_exporter/FILE", cred)
	}
	cfg, err := parseExample(m.SystemdConfig)
	if err != nil {
		add("systemd/mintlify.yml does not load: %v", err)
		return p
	}
	for _, k := range cfg.Keys {
		if want := credentials + "/" + credName; k.APIKeyFile != want {
			add("systemd/mintlify.yml: api_key_file of key %q is %q, want the credential %s", k.Name, k.APIKeyFile, want)
		}
	}
	if f := cfg.Global.TrackedJobsFile; f != "" && !strings.HasPrefix(f, "/var/lib/"+stateDir+"/") {
		add("systemd/mintlify.yml: tracked_jobs_file %s is outside the StateDirectory /var/lib/%s, the only writable place", f, stateDir)
	}
	return p
}

// projected returns the file name of each key a ConfigMap or Secret
// volume puts in its directory: every key, or only those of items.
func projected(items []keyToPath, keys []string) map[string]string {
	out := map[string]string{}
	if len(items) == 0 {
		for _, k := range keys {
			out[k] = k
		}
		return out
	}
	for _, it := range items {
		out[it.Key] = it.Path
	}
	return out
}

func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: have %q, want %q", i+1, strings.TrimSpace(gl), strings.TrimSpace(wl))
		}
	}
	return "none"
}

func TestManifests(t *testing.T) {
	m, err := loadManifests()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range check(m) {
		t.Error(p)
	}
}

// brokenFixtures maps each file of testdata/broken to a piece of the
// problem check must report for it. Each fixture breaks one thing.
var brokenFixtures = map[string]string{
	"deployment-no-image.yaml":             "the container has no image",
	"deployment-port-name.yaml":            `no container port named "http"`,
	"deployment-port-number.yaml":          `container port "http" is 8080`,
	"deployment-readiness-path.yaml":       `readinessProbe path is "/metrics"`,
	"deployment-liveness-port.yaml":        `livenessProbe port is "8080"`,
	"deployment-no-liveness.yaml":          "no livenessProbe",
	"deployment-run-as-root.yaml":          "runAsNonRoot is not true",
	"deployment-writable-root.yaml":        "readOnlyRootFilesystem is not true",
	"deployment-privilege-escalation.yaml": "allowPrivilegeEscalation is not false",
	"deployment-capabilities.yaml":         "capabilities.drop is [NET_RAW]",
	"deployment-no-memory-limit.yaml":      "resources.limits.memory is not set",
	"deployment-secret-not-mounted.yaml":   "is not a file of the mounted Secret",
	"deployment-config-path.yaml":          "--config.file=/etc/mintlify/mintlify.yml is not a file of the mounted ConfigMap",
	"deployment-no-state-volume.yaml":      "tracked_jobs_file /var/lib/mintlify_exporter/jobs.txt is on no writable volume",
	"deployment-replicas.yaml":             "2 replicas with share 1",
	"deployment-unknown-field.yaml":        "", // strict decoding refuses it
	"service-selector.yaml":                "Service: selector map[app.kubernetes.io/name:other] does not match the pod labels",
	"service-target-port.yaml":             `Service: port "http" has targetPort "metrics"`,
	"servicemonitor-port.yaml":             `endpoints[0].port is "web"`,
	"servicemonitor-selector.yaml":         "ServiceMonitor: selector map[app.kubernetes.io/name:mintlify] does not match the Service labels",
	"configmap-key-path.yaml":              "api_key_file /etc/mintlify/secret/apikey of key \"default\" is not a file of the mounted Secret",
	"configmap-invalid.yaml":               "field pagesize not found",
	"prometheusrule-differs.yaml":          "PrometheusRule: spec.groups differ from the groups of dashboards/alerts.yml",
	"prometheusrule-namespace.yaml":        `PrometheusRule mintlify-exporter: metadata.namespace is "default"`,
	"unit-not-hardened.service":            "unit: want ProtectSystem=strict",
	"unit-capabilities.service":            "unit: want CapabilityBoundingSet=",
	"unit-address-families.service":        "unit: RestrictAddressFamilies is [AF_INET AF_INET6 AF_NETLINK AF_UNIX]",
	"unit-credential.yml":                  `api_key_file of key "acme" is "/etc/mintlify_exporter/api_key", want the credential /run/credentials/mintlify_exporter.service/mintlify_api_key`,
}

func TestBrokenFixtures(t *testing.T) {
	files, err := os.ReadDir(filepath.Join("testdata", "broken"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := brokenFixtures[f.Name()]; !ok {
			t.Errorf("testdata/broken/%s is not in brokenFixtures", f.Name())
		}
	}
	for _, name := range sortedKeys(brokenFixtures) {
		want := brokenFixtures[name]
		t.Run(name, func(t *testing.T) {
			m, err := loadManifests()
			if err != nil {
				t.Fatal(err)
			}
			err = m.override(filepath.Join("testdata", "broken", name))
			if want == "" {
				if err == nil {
					t.Fatal("the fixture loaded; want a decoding error")
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			problems := check(m)
			for _, p := range problems {
				if strings.Contains(p, want) {
					return
				}
			}
			t.Errorf("no problem reported contains %q; got:\n%s", want, strings.Join(problems, "\n"))
		})
	}
}

// TestPrometheusRuleUpToDate regenerates the PrometheusRule and compares
// it with the file, byte for byte.
func TestPrometheusRuleUpToDate(t *testing.T) {
	alerts, err := os.ReadFile(filepath.Join("..", "dashboards", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	recording, err := os.ReadFile(filepath.Join("..", "dashboards", "rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := deploy.PrometheusRule(alerts, recording)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("kubernetes", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("kubernetes/prometheusrule.yaml is out of date: run `go run ./deploy/kubernetes/gen` from the repository root; first difference: %s",
			firstDiff(string(got), string(want)))
	}
}

func TestPrometheusRuleGeneratorRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          "",
		"comments only":  "# nothing\n",
		"no groups":      "groups: []\n",
		"extra field":    "groups:\n  - name: a\n    rules: []\nrule_files: [x]\n",
		"two documents":  "groups:\n  - name: a\n    rules: []\n---\ngroups: []\n",
		"not a mapping":  "- a\n",
		"groups scalar":  "groups: 3\n",
		"invalid syntax": "groups: [\n",
	} {
		if _, err := deploy.PrometheusRule([]byte(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestKustomization checks that kustomization.yaml lists every manifest
// but the Secret example, and builds when kubectl is installed.
func TestKustomization(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("kubernetes", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `yaml:"apiVersion"`
		Kind       string   `yaml:"kind"`
		Namespace  string   `yaml:"namespace"`
		Resources  []string `yaml:"resources"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&k); err != nil {
		t.Fatal(err)
	}
	if k.Kind != "Kustomization" || k.Namespace != namespace {
		t.Errorf("kind %q namespace %q, want Kustomization in %s", k.Kind, k.Namespace, namespace)
	}
	files, _ := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	var want []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" && b != "secret.example.yaml" {
			want = append(want, b)
		}
	}
	got := slices.Sorted(slices.Values(k.Resources))
	if !slices.Equal(got, want) {
		t.Errorf("resources %v, want %v (every manifest but the Secret example, which would overwrite the real key)", got, want)
	}

	// Last: every check above runs with or without kubectl.
	kubectl, ok := toolcheck.Find(t, "kubectl", "comes with the CI machine image", "kubectl kustomize build")
	if !ok {
		return
	}
	out, err := exec.Command(kubectl, "kustomize", "kubernetes").Output()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v", err)
	}
	var m manifests
	tmp := filepath.Join(t.TempDir(), "all.yaml")
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := m.addObjects(tmp, false); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Deployments) + len(m.Services) + len(m.ServiceMonitors) + len(m.PrometheusRules) + len(m.ConfigMaps) + len(m.Secrets); n != len(want) {
		t.Errorf("kubectl kustomize built %d objects, want %d", n, len(want))
	}
}

// TestSystemdAnalyzeVerify runs systemd-analyze verify on the unit, with
// the binary path pointed at an existing file, when systemd-analyze
// is installed and works here (it may not in a container).
func TestSystemdAnalyzeVerify(t *testing.T) {
	sa, ok := toolcheck.Find(t, "systemd-analyze", "apt-get install systemd", "systemd-analyze verify of the unit")
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
		// Not a missing tool: verify needs a working systemd, which a
		// container may lack even in CI.
		toolcheck.Skipped(t, "systemd-analyze", fmt.Sprintf("verify does not work here (%v: %.120s)", err, strings.Join(strings.Fields(out), " ")), "systemd-analyze verify of the unit")
		return
	}
	data, err := os.ReadFile(filepath.Join("systemd", unitName))
	if err != nil {
		t.Fatal(err)
	}
	out, err := verify(unitName, bytes.ReplaceAll(data, []byte(unitBinary), []byte(self)))
	if err != nil || out != "" {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestChartFilesUpToDate: the Helm chart's copies of the rules and the
// dashboard are the files of dashboards/, byte for byte.
func TestChartFilesUpToDate(t *testing.T) {
	for _, f := range deploy.ChartFiles {
		want, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", deploy.ChartDir, "files", filepath.Base(f)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/files/%s differs from %s: run `go run ./deploy/helm/gen` from the repository root", deploy.ChartDir, filepath.Base(f), f)
		}
	}
}

// parseExample parses a shipped example configuration with a project id
// in place of config.PlaceholderProjectID, which the exporter refuses
// (TestExamplesRefuseThePlaceholder).
func parseExample(b []byte) (*config.Config, error) {
	return config.Parse(bytes.ReplaceAll(b, []byte(config.PlaceholderProjectID), []byte("a1b2c3")))
}

// TestExamplesRefuseThePlaceholder: the shipped configurations (the
// systemd unit's, which the packages install, and the Kubernetes
// ConfigMap's) name their project config.PlaceholderProjectID, and the
// exporter refuses them as shipped, naming the field, so that an unedited
// example fails --config.check and the start.
func TestExamplesRefuseThePlaceholder(t *testing.T) {
	m, err := loadManifests()
	if err != nil {
		t.Fatal(err)
	}
	examples := map[string][]byte{"systemd/mintlify.yml": m.SystemdConfig}
	for _, cm := range m.ConfigMaps {
		for k, v := range cm.Data {
			examples["ConfigMap "+cm.Metadata.Name+" "+k] = []byte(v)
		}
	}
	if len(examples) < 2 {
		t.Fatalf("examples: %v, want the unit's and the ConfigMap's", slices.Collect(maps.Keys(examples)))
	}
	want := `projects[0] "docs": id "` + config.PlaceholderProjectID + `" is the example's placeholder`
	for name, b := range examples {
		if _, err := config.Parse(b); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s as shipped: %v, want an error containing %s", name, err, want)
		}
		if _, err := parseExample(b); err != nil {
			t.Errorf("%s with a project id: %v", name, err)
		}
	}
}
