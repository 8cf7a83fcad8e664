package deploy_test

// The parts of the Kubernetes objects and of the systemd unit that the
// checks read, and how they are loaded. The objects are decoded strictly:
// a field these types do not know (a typo such as readinesProbe, or a field
// at the wrong level) fails the test instead of being ignored by it. A new
// field that is really wanted is added here.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

type objectMeta struct {
	Name        string            `yaml:"name"`
	Namespace   string            `yaml:"namespace"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// intOrString is a port that is a number or a port name.
type intOrString string

func (p *intOrString) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a port must be a number or a name", n.Line)
	}
	*p = intOrString(n.Value)
	return nil
}

type labelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type deployment struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		Replicas             *int          `yaml:"replicas"`
		RevisionHistoryLimit *int          `yaml:"revisionHistoryLimit"`
		Selector             labelSelector `yaml:"selector"`
		Strategy             struct {
			Type string `yaml:"type"`
		} `yaml:"strategy"`
		Template struct {
			Metadata objectMeta `yaml:"metadata"`
			Spec     podSpec    `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	AutomountServiceAccountToken  *bool              `yaml:"automountServiceAccountToken"`
	EnableServiceLinks            *bool              `yaml:"enableServiceLinks"`
	ServiceAccountName            string             `yaml:"serviceAccountName"`
	PriorityClassName             string             `yaml:"priorityClassName"`
	TerminationGracePeriodSeconds *int               `yaml:"terminationGracePeriodSeconds"`
	NodeSelector                  map[string]string  `yaml:"nodeSelector"`
	Tolerations                   []map[string]any   `yaml:"tolerations"`
	Affinity                      map[string]any     `yaml:"affinity"`
	SecurityContext               podSecurityContext `yaml:"securityContext"`
	Containers                    []container        `yaml:"containers"`
	Volumes                       []volume           `yaml:"volumes"`
}

type seccompProfile struct {
	Type             string `yaml:"type"`
	LocalhostProfile string `yaml:"localhostProfile"`
}

type podSecurityContext struct {
	RunAsNonRoot   *bool           `yaml:"runAsNonRoot"`
	RunAsUser      *int64          `yaml:"runAsUser"`
	RunAsGroup     *int64          `yaml:"runAsGroup"`
	FSGroup        *int64          `yaml:"fsGroup"`
	SeccompProfile *seccompProfile `yaml:"seccompProfile"`
}

type containerSecurityContext struct {
	RunAsNonRoot             *bool           `yaml:"runAsNonRoot"`
	RunAsUser                *int64          `yaml:"runAsUser"`
	RunAsGroup               *int64          `yaml:"runAsGroup"`
	ReadOnlyRootFilesystem   *bool           `yaml:"readOnlyRootFilesystem"`
	AllowPrivilegeEscalation *bool           `yaml:"allowPrivilegeEscalation"`
	Privileged               *bool           `yaml:"privileged"`
	SeccompProfile           *seccompProfile `yaml:"seccompProfile"`
	Capabilities             struct {
		Add  []string `yaml:"add"`
		Drop []string `yaml:"drop"`
	} `yaml:"capabilities"`
}

type container struct {
	Name            string                   `yaml:"name"`
	Image           string                   `yaml:"image"`
	ImagePullPolicy string                   `yaml:"imagePullPolicy"`
	Command         []string                 `yaml:"command"`
	Args            []string                 `yaml:"args"`
	Env             []map[string]any         `yaml:"env"`
	Ports           []containerPort          `yaml:"ports"`
	ReadinessProbe  *probe                   `yaml:"readinessProbe"`
	LivenessProbe   *probe                   `yaml:"livenessProbe"`
	StartupProbe    *probe                   `yaml:"startupProbe"`
	Resources       resources                `yaml:"resources"`
	SecurityContext containerSecurityContext `yaml:"securityContext"`
	VolumeMounts    []volumeMount            `yaml:"volumeMounts"`
}

type containerPort struct {
	Name          string `yaml:"name"`
	ContainerPort int    `yaml:"containerPort"`
	Protocol      string `yaml:"protocol"`
}

type probe struct {
	HTTPGet *struct {
		Path   string      `yaml:"path"`
		Port   intOrString `yaml:"port"`
		Scheme string      `yaml:"scheme"`
	} `yaml:"httpGet"`
	InitialDelaySeconds int `yaml:"initialDelaySeconds"`
	PeriodSeconds       int `yaml:"periodSeconds"`
	TimeoutSeconds      int `yaml:"timeoutSeconds"`
	SuccessThreshold    int `yaml:"successThreshold"`
	FailureThreshold    int `yaml:"failureThreshold"`
}

type resources struct {
	Requests map[string]string `yaml:"requests"`
	Limits   map[string]string `yaml:"limits"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	SubPath   string `yaml:"subPath"`
	ReadOnly  bool   `yaml:"readOnly"`
}

type keyToPath struct {
	Key  string `yaml:"key"`
	Path string `yaml:"path"`
	Mode *int   `yaml:"mode"`
}

type volume struct {
	Name      string `yaml:"name"`
	ConfigMap *struct {
		Name        string      `yaml:"name"`
		Items       []keyToPath `yaml:"items"`
		DefaultMode *int        `yaml:"defaultMode"`
		Optional    *bool       `yaml:"optional"`
	} `yaml:"configMap"`
	Secret *struct {
		SecretName  string      `yaml:"secretName"`
		Items       []keyToPath `yaml:"items"`
		DefaultMode *int        `yaml:"defaultMode"`
		Optional    *bool       `yaml:"optional"`
	} `yaml:"secret"`
	EmptyDir *struct {
		Medium    string `yaml:"medium"`
		SizeLimit string `yaml:"sizeLimit"`
	} `yaml:"emptyDir"`
	PersistentVolumeClaim *struct {
		ClaimName string `yaml:"claimName"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"persistentVolumeClaim"`
}

type service struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		Type     string            `yaml:"type"`
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			Name       string      `yaml:"name"`
			Port       int         `yaml:"port"`
			TargetPort intOrString `yaml:"targetPort"`
			Protocol   string      `yaml:"protocol"`
		} `yaml:"ports"`
	} `yaml:"spec"`
}

type serviceMonitor struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		JobLabel          string        `yaml:"jobLabel"`
		Selector          labelSelector `yaml:"selector"`
		NamespaceSelector *struct {
			Any        bool     `yaml:"any"`
			MatchNames []string `yaml:"matchNames"`
		} `yaml:"namespaceSelector"`
		Endpoints []struct {
			Port              string           `yaml:"port"`
			Path              string           `yaml:"path"`
			Scheme            string           `yaml:"scheme"`
			Interval          string           `yaml:"interval"`
			ScrapeTimeout     string           `yaml:"scrapeTimeout"`
			HonorLabels       bool             `yaml:"honorLabels"`
			RelabelConfigs    []map[string]any `yaml:"relabelings"`
			MetricRelabelings []map[string]any `yaml:"metricRelabelings"`
		} `yaml:"endpoints"`
	} `yaml:"spec"`
}

type prometheusRule struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   objectMeta `yaml:"metadata"`
	Spec       struct {
		Groups []any `yaml:"groups"`
	} `yaml:"spec"`
}

type configMap struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
}

type secret struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   objectMeta        `yaml:"metadata"`
	Type       string            `yaml:"type"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
}

// keys returns the Secret's keys, from data and stringData.
func (s secret) keys() map[string]bool {
	k := map[string]bool{}
	for n := range s.Data {
		k[n] = true
	}
	for n := range s.StringData {
		k[n] = true
	}
	return k
}

// unit is a systemd unit file: section → directive → every assignment in
// file order (systemd accumulates or resets list directives by order).
type unit map[string]map[string][]string

// parseUnit reads the subset of the unit file syntax that matters here:
// sections, key=value lines, comments and backslash continuations.
func parseUnit(data []byte) (unit, error) {
	u := unit{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	line, n := "", 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		if line == "" && (l == "" || l[0] == '#' || l[0] == ';') {
			continue
		}
		if strings.HasSuffix(l, `\`) {
			line += strings.TrimSuffix(l, `\`) + " "
			continue
		}
		line += l
		switch {
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
			if u[section] == nil {
				u[section] = map[string][]string{}
			}
		case section == "":
			return nil, fmt.Errorf("line %d: %q is outside a section", n, line)
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: %q is not key=value", n, line)
			}
			k = strings.TrimSpace(k)
			u[section][k] = append(u[section][k], strings.TrimSpace(v))
		}
		line = ""
	}
	return u, sc.Err()
}

// last returns the last assignment of a directive and whether there is one.
func (u unit) last(section, key string) (string, bool) {
	vs := u[section][key]
	if len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// list returns the words of a list directive (RestrictAddressFamilies,
// SystemCallFilter): the assignments after the last empty one, which
// resets the list.
func (u unit) list(section, key string) []string {
	var out []string
	for _, v := range u[section][key] {
		if v == "" {
			out = nil
			continue
		}
		out = append(out, strings.Fields(v)...)
	}
	return out
}

// manifests is everything check looks at.
type manifests struct {
	Deployments     []deployment
	Services        []service
	ServiceMonitors []serviceMonitor
	PrometheusRules []prometheusRule
	ConfigMaps      []configMap
	Secrets         []secret

	Unit          unit   // systemd/mintlify_exporter.service
	SystemdConfig []byte // systemd/mintlify.yml
	Alerts        []byte // ../dashboards/alerts.yml
	Recording     []byte // ../dashboards/rules.yml
}

// decodeStrict decodes one document, refusing fields out lacks.
func decodeStrict(doc *yaml.Node, out any) error {
	b, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	return dec.Decode(out)
}

// addObjects decodes every document of a Kubernetes manifest file. With
// replace, the objects of a kind found in the file take the place of
// those already loaded (the broken fixtures replace one object each).
func (m *manifests) addObjects(path string, replace bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	seen := map[string]bool{}
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
			continue // empty document, e.g. after a trailing ---
		}
		var h struct {
			Kind string `yaml:"kind"`
		}
		if err := doc.Decode(&h); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, doc.Line, err)
		}
		reset := replace && !seen[h.Kind]
		seen[h.Kind] = true
		fail := func(err error) error {
			return fmt.Errorf("%s: %s at line %d: %w", path, h.Kind, doc.Line, err)
		}
		switch h.Kind {
		case "Deployment":
			var o deployment
			if err := decodeStrict(&doc, &o); err != nil {
				return fail(err)
			}
			if reset {
				m.Deployments = nil
			}
			m.Deployments = append(m.Deployments, o)
		case "Service":
			var o service
			if err := decodeStrict(&doc, &o); err != nil {
				return fail(err)
			}
			if reset {
				m.Services = nil
			}
			m.Services = append(m.Services, o)
		case "ServiceMonitor":
			var o serviceMonitor
			if err := decodeStrict(&doc, &o); err != nil {
				return fail(err)
			}
			if reset {
				m.ServiceMonitors = nil
			}
			m.ServiceMonitors = append(m.ServiceMonitors, o)
		case "PrometheusRule":
			var o prometheusRule
			if err := decodeStrict(&doc, &o); err != nil {
				return fail(err)
			}
			if reset {
				m.PrometheusRules = nil
			}
			m.PrometheusRules = append(m.PrometheusRules, o)
		case "ConfigMap":
			var o configMap
			if err := decodeStrict(&doc, &o); err != nil {
				return fail(err)
			}
			if reset {
				m.ConfigMaps = nil
			}
			m.ConfigMaps = append(m.ConfigMaps, o)
		case "Secret":
			var o secret
			if err := decodeStrict(&doc, &o); err != nil {
				return fail(err)
			}
			if reset {
				m.Secrets = nil
			}
			m.Secrets = append(m.Secrets, o)
		default:
			return fail(errors.New("unexpected kind"))
		}
	}
	return nil
}

// loadManifests reads the deployment files of this directory.
func loadManifests() (manifests, error) {
	var m manifests
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	if err != nil {
		return m, err
	}
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		if err := m.addObjects(f, false); err != nil {
			return m, err
		}
	}
	if err := m.setUnit(filepath.Join("systemd", "mintlify_exporter.service")); err != nil {
		return m, err
	}
	if m.SystemdConfig, err = os.ReadFile(filepath.Join("systemd", "mintlify.yml")); err != nil {
		return m, err
	}
	if m.Recording, err = os.ReadFile(filepath.Join("..", "dashboards", "rules.yml")); err != nil {
		return m, err
	}
	m.Alerts, err = os.ReadFile(filepath.Join("..", "dashboards", "alerts.yml"))
	return m, err
}

func (m *manifests) setUnit(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	u, err := parseUnit(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	m.Unit = u
	return nil
}

// override applies one broken fixture: a .yaml file replaces the
// Kubernetes objects of the kinds it holds, a .service file the systemd
// unit, a .yml file the systemd example configuration.
func (m *manifests) override(path string) error {
	switch filepath.Ext(path) {
	case ".yaml":
		return m.addObjects(path, true)
	case ".service":
		return m.setUnit(path)
	case ".yml":
		b, err := os.ReadFile(path)
		m.SystemdConfig = b
		return err
	}
	return fmt.Errorf("%s: unknown fixture type", path)
}
