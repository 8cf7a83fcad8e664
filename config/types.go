package config

import (
	"fmt"
	"regexp"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// Duration is a Prometheus-syntax duration; its own type, unlike model.Duration, gets the yaml node and so the line.
type Duration time.Duration

// String prints the duration back in the syntax it was read in.
func (d Duration) String() string { return formatDuration(time.Duration(d)) }

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.ScalarNode {
		return nodeErrorf(node, "expected a duration such as 30s or 1h")
	}
	v, err := parseDuration(node.Value)
	if err != nil {
		return nodeErrorf(node, "invalid duration %q: %v", node.Value, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

const maxWindow = 90 * 24 * time.Hour

// Window is one look-back period; its text is kept as written, for the `window` label ("7d", not "168h").
type Window struct {
	Label    string
	Duration time.Duration
}

// ParseWindow checks s the same way the config file does.
func ParseWindow(s string) (Window, error) {
	d, err := parseDuration(s)
	switch {
	case err != nil:
		return Window{}, err
	case d <= 0:
		return Window{}, fmt.Errorf("window must be longer than zero")
	case d > maxWindow:
		return Window{}, fmt.Errorf("window must be at most 90d, the history Mintlify keeps")
	case d%time.Hour != 0:
		// The API takes hours; a 90m window would be silently rounded and labelled wrongly.
		return Window{}, fmt.Errorf("window must be a whole number of hours")
	}
	return Window{Label: s, Duration: d}, nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (w *Window) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.ScalarNode {
		return nodeErrorf(node, "expected a window such as 24h or 7d")
	}
	v, err := ParseWindow(node.Value)
	if err != nil {
		return nodeErrorf(node, "invalid window %q: %v", node.Value, err)
	}
	*w = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (w Window) MarshalYAML() (any, error) { return w.Label, nil }

// Regexp is an unanchored path filter compiled at load, so a typo fails the load, not every scrape.
type Regexp struct {
	*regexp.Regexp
	original string
}

// NewRegexp compiles s as an RE2 regular expression.
func NewRegexp(s string) (Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return Regexp{}, err
	}
	return Regexp{Regexp: re, original: s}, nil
}

// UnmarshalYAML implements yaml.Unmarshaler.
func (r *Regexp) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.ScalarNode {
		return nodeErrorf(node, "expected a regular expression string")
	}
	v, err := NewRegexp(node.Value)
	if err != nil {
		return nodeErrorf(node, "invalid regexp %q: %v", node.Value, err)
	}
	*r = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (r Regexp) MarshalYAML() (any, error) { return r.original, nil }

func parseDuration(s string) (time.Duration, error) {
	d, err := model.ParseDuration(s)
	return time.Duration(d), err
}

func formatDuration(d time.Duration) string { return model.Duration(d).String() }
