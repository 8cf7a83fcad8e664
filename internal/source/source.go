// Package source is the code of the analytics kinds, one file a kind, beside the table in internal/kind:
// each kind's endpoint, cost, stored payload and samples. It knows nothing of Prometheus.
package source

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Payload is a pointer to a kind's own JSON-tagged type (TestPayloadsAreTagged).
type Payload any

// Fetched is the code of a kind fetched whole (not walked page by page).
type Fetched interface {
	// Cost bounds the requests the next Fetch makes: what the scheduler reserves of the budget.
	Cost(old Payload) int
	// Fetch asks for q's window through q.Client's budget gate; stopped by it, it may return what it finished,
	// kept as the next Old so a long walk still ends; on mintlify.ErrCursorRefused, q.Old without its walk.
	Fetch(ctx context.Context, q Query) (Payload, error)
	// Samples turns a payload into the samples of the kind's families.
	Samples(p Payload, s Settings) []Sample
	// Empty is a new, empty payload to decode a stored one into.
	Empty() Payload
	// Check refuses a stored payload this program could not have written by now, so it is fetched again.
	Check(p Payload, now time.Time) error
}

// Query is one window's fetch.
type Query struct {
	Client  *mintlify.Client
	Project string // the upstream project id
	Range   mintlify.DateRange
	// Old is nil when none; a kind that keeps finished days fetches only the rest.
	Old      Payload
	Now      time.Time
	Settings Settings
}

// Settings are what a project's configuration says about its samples.
type Settings struct {
	Keep     func(path string) bool
	TopN     int
	LookBack time.Duration
}

// Sample is one value of a kind's family; Labels exclude project and window.
type Sample struct {
	Family string
	Labels []Label
	Value  float64
}

// Label is one label of a sample.
type Label struct{ Name, Value string }

// LabelValues are f's label values in f's order, "" for a label s lacks.
func (s Sample) LabelValues(f kind.Family, project, window string) []string {
	vs := make([]string, len(f.Labels))
	for i, name := range f.Labels {
		switch name {
		case "project":
			vs[i] = project
		case "window":
			vs[i] = window
		default:
			for _, l := range s.Labels {
				if l.Name == name {
					vs[i] = l.Value
				}
			}
		}
	}
	return vs
}

var kinds = map[string]Fetched{}

func register(name string, k Fetched) Fetched {
	if _, ok := kind.Lookup(name); !ok {
		panic("source: no row for kind " + name + " in internal/kind")
	}
	kinds[name] = k
	return k
}

// Lookup is the code of the kind named name; page views and visitors have none (the exporter walks them).
func Lookup(name string) (Fetched, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Decode reads a stored payload, untrusted input that must pass the kind's Check at now.
func Decode(name string, raw json.RawMessage, now time.Time) (Payload, error) {
	k, ok := kinds[name]
	if !ok {
		return nil, fmt.Errorf("kind %q keeps no payload", name)
	}
	p := k.Empty()
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("%s payload: %w", name, err)
	}
	if err := k.Check(p, now); err != nil {
		return nil, fmt.Errorf("%s payload: %w", name, err)
	}
	return p, nil
}
