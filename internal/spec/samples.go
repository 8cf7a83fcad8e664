package spec

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Payload is a pointer to a collector's own JSON-tagged type (TestPayloadsAreTagged).
type Payload any

// Fetched is the code of a collector fetched whole (not walked page by page).
type Fetched interface {
	// Cost bounds the requests the next Fetch makes: what the scheduler reserves of the budget.
	Cost(old Payload) int
	// Fetch asks for q's window through q.Client's budget gate; stopped by it, it may return what it finished,
	// kept as the next Old so a long walk still ends; on mintlify.ErrCursorRefused, q.Old without its walk.
	Fetch(ctx context.Context, q Query) (Payload, error)
	// Samples turns a payload into the samples of the collector's families.
	Samples(p Payload, s Settings) []Sample
	// Empty is a new, empty payload to decode a stored one into.
	Empty() Payload
	// Check refuses a stored payload this program could not have written by now, so it is fetched again.
	Check(p Payload, now time.Time) error
}

// Bookkept is a Fetched whose payloads tell how they were fetched: samples of the row's Bookkeeping families.
type Bookkept interface {
	Bookkeeping(p Payload, s Settings) []Sample
}

// Query is one window's fetch.
type Query struct {
	Client  *mintlify.Client
	Project string // the upstream project id
	Range   mintlify.DateRange
	// Old is nil when none; a collector that keeps finished days fetches only the rest.
	Old      Payload
	Now      time.Time
	Settings Settings
}

// Settings are what a project's configuration says about its requests and samples.
type Settings struct {
	Keep     func(path string) bool
	TopN     int
	LookBack time.Duration
	// A walk's: its rows kept (0 for all), its page size, pages in flight and pages at most.
	MaxPaths, PageSize, Concurrency, MaxPages int
}

// Walking is a payload of a walk that outlasts a fetch: a whole refresh costs its last complete walk's pages
// (0 before one), not what is left of the walk under way, and its data's range is the walk's, kept across midnight.
type Walking interface {
	Pages() int
	ShownRange() *mintlify.DateRange
}

// Sample is one value of a collector's family; Labels exclude project and window.
type Sample struct {
	Family string
	Labels []Label
	Value  float64
}

// Label is one label of a sample.
type Label struct{ Name, Value string }

// LabelValues are f's label values in f's order, "" for a label s lacks.
func (s Sample) LabelValues(f Family, project, window string) []string {
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

// Decode reads a stored payload, untrusted input that must pass the collector's Check at now.
func (k Collector) Decode(raw json.RawMessage, now time.Time) (Payload, error) {
	if k.Fetched == nil {
		return nil, fmt.Errorf("collector %q keeps no payload", k.Name)
	}
	p := k.Fetched.Empty()
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("%s payload: %w", k.Name, err)
	}
	if err := k.Fetched.Check(p, now); err != nil {
		return nil, fmt.Errorf("%s payload: %w", k.Name, err)
	}
	return p, nil
}

// Traffic label values; deliberately no "total": sum() does that.
const (
	TrafficHuman = "human"
	TrafficAI    = "ai"
	// TrafficOther is what a site total holds beyond human + ai.
	TrafficOther = "other"
)
