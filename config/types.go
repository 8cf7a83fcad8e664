package config

import (
	"fmt"
	"regexp"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written in Prometheus syntax ("30s", "1h30m",
// "7d", "1w"). It wraps model.ParseDuration in its own type, rather than
// using model.Duration, so that a bad value is reported with its line: yaml
// only hands the node (and so the position) to Unmarshaler implementations,
// and model.Duration uses the older interface without it.
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

// maxWindow is how far back Mintlify's analytics go.
const maxWindow = 90 * 24 * time.Hour

// Window is one look-back period for the analytics queries. The text is kept
// as written because it becomes the `window` label: a user who writes "7d"
// should find window="7d" in Prometheus, not "1w" or "168h".
type Window struct {
	Label    string
	Duration time.Duration
}

// ParseWindow checks s the same way the config file does. The flag-only mode
// and tests use it to build windows without YAML.
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
		// The API takes dates at hour resolution; a 90m window would be
		// silently rounded and then labelled wrongly.
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

// MarshalYAML implements yaml.Marshaler; it prints the label as written.
func (w Window) MarshalYAML() (any, error) { return w.Label, nil }

// Regexp is a path filter compiled when the file is loaded, so a typo fails
// the load (or the reload) instead of every scrape. Matching is unanchored,
// as in Go's regexp package: write '^/docs/' to match a prefix.
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

// MarshalYAML implements yaml.Marshaler; it prints the source text.
func (r Regexp) MarshalYAML() (any, error) { return r.original, nil }

// parseDuration reads Prometheus duration syntax ("1h30m", "7d", "1w"),
// with the same rules as Prometheus' own configuration: units largest
// first, each at most once, whole numbers only.
func parseDuration(s string) (time.Duration, error) {
	d, err := model.ParseDuration(s)
	return time.Duration(d), err
}

// formatDuration is the inverse of parseDuration, largest units first, so a
// marshalled config reads like a hand-written one ("1d", not "24h0m0s").
func formatDuration(d time.Duration) string { return model.Duration(d).String() }
