package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestStateSchemaIsTagged: every field the state file holds has a json
// tag, the kinds' payloads included.
func TestStateSchemaIsTagged(t *testing.T) {
	testkit.CheckJSONTags(t, stateFile{})
	testkit.CheckJSONTags(t, unitSnapshot{})
	for _, k := range collector.All {
		if k.Fetched != nil {
			testkit.CheckJSONTags(t, k.Fetched.Empty())
		}
	}
}

// TestWindowsOfEachRule: the windows of a unit follow its kind's Windows
// rule: the month and the listed windows, the windows alone (24h when
// none), the month alone, or one snapshot.
func TestWindowsOfEachRule(t *testing.T) {
	listed := []windowSpec{{label: "7d", duration: 7 * 24 * time.Hour}}
	for _, tc := range []struct {
		rule   spec.Windows
		listed []windowSpec
		want   []windowSpec
	}{
		{spec.MonthAndWindows, listed, append([]windowSpec{monthWindow}, listed...)},
		{spec.MonthAndWindows, nil, []windowSpec{monthWindow}},
		{spec.WindowsOnly, listed, listed},
		{spec.WindowsOnly, nil, []windowSpec{windowsOnlyDefault}},
		{spec.MonthOnly, listed, []windowSpec{monthWindow}},
		{spec.Snapshot, listed, []windowSpec{snapshotWindow}},
	} {
		if got := windowsOf(spec.Collector{Windows: tc.rule}, tc.listed); !slices.Equal(got, tc.want) {
			t.Errorf("rule %d, listed %v: %v, want %v", tc.rule, tc.listed, got, tc.want)
		}
	}
}
