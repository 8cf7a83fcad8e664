package collector

import (
	"testing"

	sources "github.com/mintlify-exporter/mintlify_exporter/internal/source"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestStateSchemaIsTagged: every field the state file holds has a json
// tag, the kinds' payloads included.
func TestStateSchemaIsTagged(t *testing.T) {
	testkit.CheckJSONTags(t, stateFile{})
	testkit.CheckJSONTags(t, unitSnapshot{})
	for _, name := range sources.Names() {
		code, _ := sources.Lookup(name)
		testkit.CheckJSONTags(t, code.Empty())
	}
}
