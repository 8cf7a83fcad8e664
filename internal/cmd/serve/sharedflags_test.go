package serve

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestSharedFlags: a flag the exporter shares with the other commands
// means the same as in each of them: same name, default, environment
// variable, placeholder and first sentence of help; the table of
// docs/configuration.md says which command has which.
func TestSharedFlags(t *testing.T) {
	testkit.CheckSharedFlags(t, "exporter", newApp(&flags{}))
}

// TestEveryKindIsKnown is the exporter's part of the table of collector
// kinds (the root package's test of that name has the rest): each kind
// has its --collector flag with the table's default.
func TestEveryKindIsKnown(t *testing.T) {
	defaults := map[string][]string{}
	for _, f := range newApp(&flags{}).Model().Flags {
		defaults[f.Name] = f.Default
	}
	for _, k := range kind.All {
		def, ok := defaults["collector."+k.Name]
		if !ok {
			t.Errorf("the exporter has no --collector.%s", k.Name)
		} else if want := fmt.Sprint(k.Default); strings.Join(def, "") != want {
			t.Errorf("--collector.%s defaults to %v, the table says %s", k.Name, def, want)
		}
	}
}
