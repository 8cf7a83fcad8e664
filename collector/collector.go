// Package collector holds the collectors, one file each named after its flag: its row, its request, the
// check of its stored payload and its samples. The engine is handed All; it knows them by internal/spec.
package collector

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

type (
	Payload  = spec.Payload
	Query    = spec.Query
	Settings = spec.Settings
	Sample   = spec.Sample
	Label    = spec.Label
	Family   = spec.Family
)

// All is every collector, in the order they are documented.
var All = spec.List{pageViewsRow, visitorsRow, feedbackRow, searchesRow, assistantRow, conversationsRow, feedbackBacklogRow}

func Names() []string { return All.Names() }

func Lookup(name string) (spec.Collector, bool) { return All.Lookup(name) }

// Views is the walked collector the backfill walks day by day and whose month walk the ledger records.
const Views = PageViews

// monthCounter ends the HELP of a month-to-date counter.
const monthCounter = " Starts again from 0 on the 1st."

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func droppedRows(family string, duplicates, outOfRange float64) []Sample {
	return []Sample{
		{Family: family, Labels: []Label{{Name: "reason", Value: "duplicate"}}, Value: duplicates},
		{Family: family, Labels: []Label{{Name: "reason", Value: "out_of_range"}}, Value: outOfRange},
	}
}

// Decode reads a stored payload of the collector named name, untrusted input that must pass its Check at now.
func Decode(name string, raw json.RawMessage, now time.Time) (Payload, error) {
	k, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("collector %q keeps no payload", name)
	}
	return k.Decode(raw, now)
}
