package receiver

// The routes file is strict YAML, bounded and checked whole at load, so a notification can only be refused for what it carries.

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"text/template"
	tparse "text/template/parse"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// Bounds of the routes file and what it names.
const (
	MaxConfigBytes   = 1 << 20
	MaxRoutes        = 100
	MaxMatchers      = 20
	MaxSlots         = 10
	MaxMapEntries    = 200
	MaxTemplateBytes = 64 << 10
	MaxPromptBytes   = 128 << 10
	maxNameLen       = 64
)

// Defaults of the routes file.
const (
	DefaultCooldown = 7 * 24 * time.Hour
	DefaultDailyCap = 2
	// DefaultLabelPattern admits a path or a slug, not a sentence (no space); hiddenSegment is refused with it.
	DefaultLabelPattern = `^[A-Za-z0-9_./-]{1,64}$`
)

// hiddenSegment (.github, .git, ..): no page path has one, and a prompt must not point an agent at CI files.
var hiddenSegment = regexp.MustCompile(`(^|/)\.`)

// visitorLabels hold what visitors typed (query) or the API derived from it (category): only an operator-written
// map lets them into a prompt, as any pattern would let a visitor's words through.
var visitorLabels = []string{"category", "query"}

// Action kinds.
const (
	KindAutomation = "automation"
	KindJob        = "job"
)

// nameRE: route names become metric label values, file keys and log fields.
var nameRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`)

var labelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`)

// Config is the routes file.
type Config struct {
	// Act switches acting on, as --receiver.act does; without either the receiver only records what it would do.
	Act      bool           `yaml:"act"`
	Cooldown model.Duration `yaml:"cooldown"`
	DailyCap int            `yaml:"daily_cap"`
	// Projects names each project id; the name is the only project text a template sees.
	Projects map[string]string `yaml:"projects"`
	Routes   []*Route          `yaml:"routes"`
}

// Route is one alert name and label matchers, and the one action it starts.
type Route struct {
	Name     string            `yaml:"name"`
	Alert    string            `yaml:"alert"`
	Matchers map[string]string `yaml:"matchers"`
	Labels   []*Slot           `yaml:"labels"`
	Action   Action            `yaml:"action"`

	tmpl         *template.Template
	templateHash string
}

// Slot is a label a template may use: its value a key of Map (the template sees the operator's text), else matching Pattern.
type Slot struct {
	Name    string            `yaml:"name"`
	Pattern string            `yaml:"pattern"`
	Map     map[string]string `yaml:"map"`

	re     *regexp.Regexp
	hidden bool // the default pattern: refuse hiddenSegment too
}

// Action is what a route starts.
type Action struct {
	Kind               string `yaml:"kind"`
	Project            string `yaml:"project"`
	AutomationID       string `yaml:"automation_id"`
	PromptTemplateFile string `yaml:"prompt_template_file"`
}

// LoadConfig reads and checks the routes file at path and the prompt templates it names.
func LoadConfig(path string) (*Config, error) {
	data, err := safefile.Read(path, "routes file", MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	c, err := parseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("routes file %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("routes file %s: %w", path, err)
	}
	defer root.Close()
	for _, r := range c.Routes {
		if r.Action.Kind != KindJob {
			continue
		}
		file := r.Action.PromptTemplateFile
		src, err := readTemplate(root, dir, file)
		if err != nil {
			return nil, fmt.Errorf("route %s: prompt_template_file %s: %w", r.Name, file, err)
		}
		if err := r.setTemplate(string(src), c.Projects[r.Action.Project]); err != nil {
			return nil, fmt.Errorf("route %s: prompt template %s: %w", r.Name, file, err)
		}
	}
	return c, nil
}

// readTemplate uses os.Root, which refuses ".." and links leading out, so the routes file cannot make another file a prompt.
func readTemplate(root *os.Root, dir, name string) ([]byte, error) {
	rel := name
	if filepath.IsAbs(name) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		if rel, err = filepath.Rel(abs, name); err != nil {
			return nil, err
		}
	}
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("must name a file inside %s, the routes file's directory", dir)
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO is refused below, not waited on
	if err != nil {
		return nil, fmt.Errorf("must be a regular file inside %s, the routes file's directory, with no symbolic link out of it: %w", dir, err)
	}
	defer f.Close()
	return safefile.ReadAll(f, "prompt template", MaxTemplateBytes)
}

func parseConfig(data []byte) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty file")
		}
		return nil, err
	}
	var extra any
	if dec.Decode(&extra) != io.EOF {
		return nil, errors.New("more than one YAML document")
	}
	c.Cooldown = cmp.Or(c.Cooldown, model.Duration(DefaultCooldown))
	c.DailyCap = cmp.Or(c.DailyCap, DefaultDailyCap)
	return &c, c.validate()
}

func (c *Config) validate() error {
	switch {
	case c.Cooldown < 0:
		return errors.New("cooldown must not be negative")
	case c.DailyCap < 0 || c.DailyCap > 100:
		return fmt.Errorf("daily_cap must be 1 to 100 (0 for the default %d), got %d", DefaultDailyCap, c.DailyCap)
	case len(c.Routes) == 0:
		return errors.New("no routes")
	case len(c.Routes) > MaxRoutes:
		return fmt.Errorf("%d routes, at most %d", len(c.Routes), MaxRoutes)
	case len(c.Projects) > MaxRoutes:
		return fmt.Errorf("%d projects, at most %d", len(c.Projects), MaxRoutes)
	}
	for id, name := range c.Projects {
		if err := mintlify.CheckID(id); err != nil {
			return fmt.Errorf("projects: %w", err)
		}
		if mintlify.IsPlaceholder(id) {
			return fmt.Errorf("projects: %s is the example's placeholder: set your Mintlify project's id", id)
		}
		if err := checkOperatorText(name); err != nil {
			return fmt.Errorf("projects: name of %s: %w", id, err)
		}
	}
	for i, r := range c.Routes {
		if r == nil {
			return fmt.Errorf("routes[%d] is empty", i)
		}
		if err := r.validate(c.Projects); err != nil {
			return fmt.Errorf("routes[%d]: %w", i, err)
		}
		if slices.ContainsFunc(c.Routes[:i], func(o *Route) bool { return o.Name == r.Name }) {
			return fmt.Errorf("routes[%d]: name %q used twice", i, r.Name)
		}
	}
	return nil
}

func (r *Route) validate(projects map[string]string) error {
	if !nameRE.MatchString(r.Name) {
		return fmt.Errorf("name %q must be a letter, then up to 63 letters, digits, _ or -", r.Name)
	}
	if !model.LabelValue(r.Alert).IsValid() || r.Alert == "" || len(r.Alert) > 256 {
		return fmt.Errorf("route %s: alert must be an alert name", r.Name)
	}
	if len(r.Matchers) > MaxMatchers || len(r.Labels) > MaxSlots {
		return fmt.Errorf("route %s: at most %d matchers and %d labels", r.Name, MaxMatchers, MaxSlots)
	}
	for name, v := range r.Matchers {
		if !labelNameRE.MatchString(name) || name == model.AlertNameLabel || len(v) > 1024 {
			return fmt.Errorf("route %s: matcher %q: a label name (not alertname: use alert) and a value of at most 1024 bytes", r.Name, name)
		}
	}
	for _, s := range r.Labels {
		if s == nil || !labelNameRE.MatchString(s.Name) {
			return fmt.Errorf("route %s: each label needs a label name", r.Name)
		}
		if err := s.compile(); err != nil {
			return fmt.Errorf("route %s: label %s: %w", r.Name, s.Name, err)
		}
	}
	return r.Action.validate(r.Name, projects)
}

func (a *Action) validate(route string, projects map[string]string) error {
	if _, ok := projects[a.Project]; !ok {
		return fmt.Errorf("route %s: action project %q is not listed under projects", route, a.Project)
	}
	switch a.Kind {
	case KindAutomation:
		if err := mintlify.CheckID(a.AutomationID); err != nil || a.PromptTemplateFile != "" {
			return fmt.Errorf("route %s: an automation action needs automation_id (an id) and no prompt_template_file", route)
		}
		if mintlify.IsPlaceholder(a.AutomationID) {
			return fmt.Errorf("route %s: automation_id %s is the example's placeholder: set your automation's id", route, a.AutomationID)
		}
	case KindJob:
		if a.PromptTemplateFile == "" || a.AutomationID != "" {
			return fmt.Errorf("route %s: a job action needs prompt_template_file and no automation_id", route)
		}
	default:
		return fmt.Errorf("route %s: action kind must be %s or %s, got %q", route, KindAutomation, KindJob, a.Kind)
	}
	return nil
}

func (s *Slot) compile() error {
	if slices.Contains(visitorLabels, s.Name) && len(s.Map) == 0 {
		return fmt.Errorf("%s carries what visitors typed: list the values to pass under map:, each with the text the prompt gets", s.Name)
	}
	if len(s.Map) > MaxMapEntries {
		return fmt.Errorf("map has %d entries, at most %d", len(s.Map), MaxMapEntries)
	}
	for k, v := range s.Map {
		if len(k) > 1024 {
			return errors.New("a map key is over 1024 bytes")
		}
		if err := checkOperatorText(v); err != nil {
			return fmt.Errorf("map value for %q: %w", k, err)
		}
	}
	p := cmp.Or(s.Pattern, DefaultLabelPattern)
	s.hidden = s.Pattern == ""
	if !strings.HasPrefix(p, "^") || !strings.HasSuffix(p, "$") {
		return fmt.Errorf("pattern %q must be anchored (^...$)", p)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return fmt.Errorf("pattern: %w", err)
	}
	s.re = re
	return nil
}

func checkOperatorText(s string) error {
	if s == "" || len(s) > 1024 || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.New("must be 1 to 1024 bytes without control characters")
	}
	return nil
}

type templateData struct {
	Alert   string
	Project string
	Labels  map[string]string
}

// setTemplate renders once with placeholders, so a template using anything but the route's labels fails at load.
func (r *Route) setTemplate(src, projectName string) error {
	t, err := template.New(r.Name).Option("missingkey=error").Parse(src)
	if err != nil {
		return err
	}
	if len(t.Templates()) > 1 {
		return errors.New("define and block are not allowed in a prompt template")
	}
	if err := checkWork(t.Root, false); err != nil {
		return err
	}
	r.tmpl = t
	r.templateHash = fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(src)))
	sample := map[string]string{}
	for _, s := range r.Labels {
		sample[s.Name] = "x"
	}
	_, err = r.render(templateData{Alert: r.Alert, Project: projectName, Labels: sample})
	return err
}

// templateFuncs test and compare; none builds text, so no value outgrows the template's inputs.
var templateFuncs = []string{"and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "len", "index"}

// checkWork bounds a render's work whatever the values: a range only over .Labels (at most MaxSlots entries) and
// not nested; no define, template or block (recursion).
func checkWork(n tparse.Node, inRange bool) error {
	switch n := n.(type) {
	case *tparse.ListNode:
		for _, c := range n.Nodes {
			if err := checkWork(c, inRange); err != nil {
				return err
			}
		}
	case *tparse.TextNode, *tparse.CommentNode, *tparse.BreakNode, *tparse.ContinueNode:
	case *tparse.ActionNode:
		return checkFuncs(n.Pipe)
	case *tparse.IfNode:
		return checkBranch(&n.BranchNode, inRange, inRange)
	case *tparse.WithNode:
		return checkBranch(&n.BranchNode, inRange, inRange)
	case *tparse.RangeNode:
		if inRange || !overLabels(n.Pipe) {
			return fmt.Errorf("line %d: a range may only be over .Labels, and not within another range", n.Line)
		}
		return checkBranch(&n.BranchNode, true, inRange)
	default:
		return fmt.Errorf("%s is not allowed in a prompt template (no define, template or block)", n)
	}
	return nil
}

func checkBranch(b *tparse.BranchNode, listInRange, elseInRange bool) error {
	if err := checkFuncs(b.Pipe); err != nil {
		return err
	}
	if err := checkWork(b.List, listInRange); err != nil || b.ElseList == nil {
		return err
	}
	return checkWork(b.ElseList, elseInRange)
}

// checkFuncs refuses a call to a function not in templateFuncs anywhere in a pipeline or argument.
func checkFuncs(n tparse.Node) error {
	switch n := n.(type) {
	case *tparse.IdentifierNode:
		if !slices.Contains(templateFuncs, n.Ident) {
			return fmt.Errorf("function %s is not allowed in a prompt template (only %s)", n.Ident, strings.Join(templateFuncs, ", "))
		}
	case *tparse.PipeNode:
		for _, c := range n.Cmds {
			for _, a := range c.Args {
				if err := checkFuncs(a); err != nil {
					return err
				}
			}
		}
	case *tparse.ChainNode:
		return checkFuncs(n.Node)
	}
	return nil
}

func overLabels(p *tparse.PipeNode) bool {
	if len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *tparse.FieldNode:
		return slices.Equal(a.Ident, []string{"Labels"})
	case *tparse.VariableNode:
		return slices.Equal(a.Ident, []string{"$", "Labels"})
	}
	return false
}

// boundedBuffer fails a write past MaxPromptBytes, so a prompt never grows past it in memory.
type boundedBuffer struct{ bytes.Buffer }

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > MaxPromptBytes {
		return 0, fmt.Errorf("renders a prompt over %d bytes", MaxPromptBytes)
	}
	return b.Buffer.Write(p)
}

func (r *Route) render(d templateData) (string, error) {
	var b boundedBuffer
	if err := r.tmpl.Execute(&b, d); err != nil {
		return "", err
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", errors.New("renders an empty prompt")
	}
	return b.String(), nil
}

func (r *Route) matches(labels map[string]string) bool {
	if labels[model.AlertNameLabel] != r.Alert {
		return false
	}
	for k, v := range r.Matchers {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// slotValues names a failing value by its label only, never quoted: it may be text a visitor wrote.
func (r *Route) slotValues(labels map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(r.Labels))
	for _, s := range r.Labels {
		v, ok := labels[s.Name]
		text, mapped := s.Map[v]
		switch {
		case !ok:
			return nil, fmt.Errorf("label %s is missing", s.Name)
		case s.Map != nil && !mapped:
			return nil, fmt.Errorf("label %s: value (%d bytes) is not in the route's map", s.Name, len(v))
		case s.Map != nil:
			v = text // the operator's text, not the label's
		case !s.re.MatchString(v):
			return nil, fmt.Errorf("label %s: value (%d bytes) does not match %s", s.Name, len(v), s.re)
		case s.hidden && hiddenSegment.MatchString(v):
			return nil, fmt.Errorf("label %s: value (%d bytes) has a path segment starting with \".\"", s.Name, len(v))
		}
		out[s.Name] = v
	}
	return out, nil
}

func (c *Config) projectIDs() []string {
	ps := make([]string, 0, len(c.Routes))
	for _, r := range c.Routes {
		ps = append(ps, r.Action.Project)
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}
