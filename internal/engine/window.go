package engine

import (
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// pathAllowed also refuses what cannot be a label value (mintlify.PathLabelOK); such rows count as dropped.
func pathAllowed(match func(path string) bool) func(path string) bool {
	return func(path string) bool { return mintlify.PathLabelOK(path) && (match == nil || match(path)) }
}

type windowSpec struct {
	label    string
	duration time.Duration
	month    bool
}

// key: a window whose duration changes under the same label is new data.
func (w windowSpec) key() string {
	if w.month {
		return "month"
	}
	return w.label + "=" + w.duration.String()
}
