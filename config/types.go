package config

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written in Prometheus syntax ("30s", "1h30m",
// "7d", "1w"). It is its own type, rather than model.Duration, so that a bad
// value is reported with its line: yaml only hands the node (and so the
// position) to Unmarshaler implementations, and model.Duration uses the
// older interface without it.
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

// durationUnits are Prometheus' units, largest first; a duration must use
// them in this order and each at most once ("1h30m", not "30m1h").
var durationUnits = []struct {
	name string
	size time.Duration
}{
	{"y", 365 * 24 * time.Hour},
	{"w", 7 * 24 * time.Hour},
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
	{"ms", time.Millisecond},
}

// parseDuration reads Prometheus duration syntax. It is written here rather
// than taken from prometheus/common/model because that package pulls in
// protobuf, which nothing else in the exporter's config needs.
func parseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if s == "0" {
		return 0, nil
	}
	var total time.Duration
	last := -1
	for rest := s; rest != ""; {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("expected a number at %q", rest)
		}
		n, err := strconv.ParseInt(rest[:i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("number %q is too large", rest[:i])
		}
		rest = rest[i:]
		j := 0
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		if unit == "" {
			return 0, fmt.Errorf("missing unit after %d (use ms, s, m, h, d, w or y)", n)
		}
		idx := -1
		for k, u := range durationUnits {
			if u.name == unit {
				idx = k
			}
		}
		if idx < 0 {
			return 0, fmt.Errorf("unknown unit %q (use ms, s, m, h, d, w or y)", unit)
		}
		if idx <= last {
			return 0, fmt.Errorf("units must go from largest to smallest, each at most once")
		}
		last = idx
		size := durationUnits[idx].size
		if n > (1<<63-1-int64(total))/int64(size) {
			return 0, fmt.Errorf("duration is too long")
		}
		total += time.Duration(n) * size
	}
	return total, nil
}

// formatDuration is the inverse of parseDuration, largest units first, so a
// marshalled config reads like a hand-written one ("1d", not "24h0m0s").
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	var out []byte
	if d < 0 {
		out = append(out, '-')
		d = -d
	}
	for _, u := range durationUnits {
		if n := d / u.size; n > 0 {
			out = strconv.AppendInt(out, int64(n), 10)
			out = append(out, u.name...)
			d -= n * u.size
		}
	}
	if d > 0 { // below a millisecond; only reachable from Go code
		out = append(out, time.Duration(d).String()...)
	}
	return string(out)
}
