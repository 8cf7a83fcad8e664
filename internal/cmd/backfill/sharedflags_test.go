package backfill

import (
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestSharedFlags: a flag the backfill shares with the other commands
// means the same as in each of them: same name, default, environment
// variable, placeholder and first sentence of help; the table of
// docs/configuration.md says which command has which, and a deprecated
// name is hidden and still accepted.
func TestSharedFlags(t *testing.T) {
	app, _ := newBackfillApp(&backfillOptions{})
	testkit.CheckSharedFlags(t, "backfill", app)
}

// TestEveryKindIsKnown is the backfill's part of the table of collector
// kinds (the root package's test of that name has the rest): it can write
// the counters of every kind that counts the month to date.
func TestEveryKindIsKnown(t *testing.T) {
	app, _ := newBackfillApp(&backfillOptions{})
	flags := map[string]bool{}
	for _, f := range app.Model().Flags {
		flags[f.Name] = true
	}
	for _, k := range collector.All {
		if k.Windows.HasMonth() && k.Name != collector.PageViews && !flags["collector."+k.Name] {
			t.Errorf("the backfill has no --collector.%s for its counters", k.Name)
		}
	}
}
