// Package source is the code of the analytics kinds, one file a kind.
// For a kind fetched whole (Fetched) the file says its endpoint call and
// cost, the payload it keeps of a window (its own JSON-tagged types,
// written to the exporter's state file and the backfill's journal), and
// the one function that turns that payload into samples. For the kinds
// walked page by page (pageviews.go: Walked) it says which endpoint is
// walked and what a walk's rows and totals become. Which kind is which is
// for each kind's file to say (TestEveryKindHasCode: every row of
// internal/kind.All is one or the other). The exporter's window gauges
// and month-to-date counters and the backfill's lines all come from
// those functions.
//
// The kinds' data (names, flags, HELP, labels, windows, settings) is the
// table in internal/kind; this package is the code beside it. It knows
// nothing of Prometheus: a Sample names its family, and the exporter and
// the backfill write it each in their own format.
package source

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Payload is what a kind keeps of one window: a pointer to the kind's own
// JSON-tagged type. Every field written to disk has a json tag
// (TestPayloadsAreTagged).
type Payload any

// Fetched is the code of a kind fetched whole (not walked page by page).
type Fetched interface {
	// Cost is how many requests the next Fetch over a window whose last
	// payload is old (nil when none) makes at most: what the scheduler
	// reserves of the budget for it.
	Cost(old Payload) int
	// Fetch asks the API for the window of q and returns its new payload.
	// Each request passes the gate of q.Client (mintlify.(*Client).Gated), which
	// charges it to the budget. When the gate stops it (an error wrapping
	// mintlify.ErrSweepStopped), a kind may return, beside the error, a
	// payload of what it finished, every part of it whole: the exporter
	// keeps it as the next Fetch's Old (and shows it), so a walk longer
	// than one grant of the budget still ends. On a cursor refused for
	// good (mintlify.ErrCursorRefused) it returns q.Old without its walk,
	// which the exporter keeps, so the next round walks afresh. Else it
	// returns nil.
	Fetch(ctx context.Context, q Query) (Payload, error)
	// Samples turns a payload into the samples of the kind's families.
	Samples(p Payload, s Settings) []Sample
	// Empty is a new, empty payload to decode a stored one into.
	Empty() Payload
	// Check tells a stored payload (state file, backfill journal) that
	// this program could not have written by now: the same checks as an
	// API answer (counts not negative and at most MaxStoredCount, names as
	// sanitised as the API's, statuses and sources among the documented
	// values) and those of the kind (dates). Decode refuses such a
	// payload, so it is fetched again.
	Check(p Payload, now time.Time) error
}

// Query is one window's fetch.
type Query struct {
	Client  *mintlify.Client
	Project string // the upstream project id
	Range   mintlify.DateRange
	// Old is the window's last payload, nil when none: a kind that keeps
	// what does not change (finished days) fetches only the rest.
	Old      Payload
	Now      time.Time
	Settings Settings
}

// Settings are what a project's configuration says about its samples.
type Settings struct {
	// Keep reports whether a path is exported (include_paths,
	// exclude_paths, and what can be a label value).
	Keep func(path string) bool
	// TopN and LookBack are the kind's own settings (its row's TopN and
	// LookBack, as the configuration sets them: config.Global.TopN,
	// LookBack).
	TopN     int
	LookBack time.Duration
}

// Sample is one value of a kind's data: Family is a gauge family of the
// kind's table row, as shown for a rolling window; Labels are its labels
// other than project and window. For the month-to-date range it becomes
// the family kind.Kind.MonthOf names.
type Sample struct {
	Family string
	Labels []Label
	Value  float64
}

// Label is one label of a sample.
type Label struct{ Name, Value string }

// LabelValues are the values of f's labels for s, in f's order: project
// and window as given, the others from s ("" when s has none).
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

// register adds the code of the table's kind name; each kind's file calls
// it once, when the package loads.
func register(name string, k Fetched) Fetched {
	if _, ok := kind.Lookup(name); !ok {
		panic("source: no row for kind " + name + " in internal/kind")
	}
	kinds[name] = k
	return k
}

// Lookup is the code of the kind named name; ok is false for a kind
// without (page views and visitors, which the exporter walks itself).
func Lookup(name string) (Fetched, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Decode reads a stored payload of kind name, untrusted input: it must
// pass the kind's Check at now, the time it is read.
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
