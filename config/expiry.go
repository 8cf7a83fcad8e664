package config

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// DateLayout is expires_at's format, the date the Mintlify dashboard shows.
const DateLayout = "2006-01-02"

// ExpiryWarning is how long before a key's expires_at --config.check warns and MintlifyAPIKeyExpiresSoon fires.
const ExpiryWarning = 14 * 24 * time.Hour

// Date is a calendar day, as 00:00 UTC of it: the earliest moment the dashboard's date can mean.
type Date struct{ time.Time }

// ParseDate reads YYYY-MM-DD strictly: no time, no zone, a real day.
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(DateLayout, s)
	if err != nil || t.Format(DateLayout) != s {
		return Date{}, fmt.Errorf("must be a date YYYY-MM-DD, got %q", s)
	}
	return Date{t}, nil
}

// String prints the date as written.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.Format(DateLayout)
}

// UnmarshalYAML implements yaml.Unmarshaler; an unquoted date is a YAML timestamp, so the node's text is read, not its tag.
func (d *Date) UnmarshalYAML(node *yaml.Node) error {
	v, err := ParseDate(node.Value)
	if node.Kind != yaml.ScalarNode || err != nil {
		return nodeErrorf(node, "expires_at must be a date YYYY-MM-DD, got %q", node.Value)
	}
	*d = v
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Date) MarshalYAML() (any, error) { return d.String(), nil }

// ExpiringKeys are the indexes of the keys whose expires_at is before now+within, expired ones included.
func (c *Config) ExpiringKeys(now time.Time, within time.Duration) []int {
	var out []int
	for i, k := range c.Keys {
		if !k.ExpiresAt.IsZero() && k.ExpiresAt.Before(now.Add(within)) {
			out = append(out, i)
		}
	}
	return out
}
