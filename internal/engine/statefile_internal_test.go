package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestStateSchemaIsTagged: every field the state file holds has a json
// tag, the kinds' payloads included.
func TestStateSchemaIsTagged(t *testing.T) {
	testkit.CheckJSONTags(t, stateFile{})
	testkit.CheckJSONTags(t, unitSnapshot{})
	for _, name := range kind.Names() {
		if code, ok := source.Lookup(name); ok {
			testkit.CheckJSONTags(t, code.Empty())
		}
	}
}

// TestWindowsOfEachRule: the windows of a unit follow its kind's Windows
// rule: the month and the listed windows, the windows alone (24h when
// none), the month alone, or one snapshot.
func TestWindowsOfEachRule(t *testing.T) {
	listed := []windowSpec{{label: "7d", duration: 7 * 24 * time.Hour}}
	for _, tc := range []struct {
		rule   kind.Windows
		listed []windowSpec
		want   []windowSpec
	}{
		{kind.MonthAndWindows, listed, append([]windowSpec{monthWindow}, listed...)},
		{kind.MonthAndWindows, nil, []windowSpec{monthWindow}},
		{kind.WindowsOnly, listed, listed},
		{kind.WindowsOnly, nil, []windowSpec{windowsOnlyDefault}},
		{kind.MonthOnly, listed, []windowSpec{monthWindow}},
		{kind.Snapshot, listed, []windowSpec{snapshotWindow}},
	} {
		if got := windowsOf(kind.Kind{Windows: tc.rule}, tc.listed); !slices.Equal(got, tc.want) {
			t.Errorf("rule %d, listed %v: %v, want %v", tc.rule, tc.listed, got, tc.want)
		}
	}
}
