package testkit

import (
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
)

// KindsCounting are the kinds of the table that count over w (for
// example kind.MonthAndWindows), and the project configuration line that
// turns them on, so that a test of them runs every such kind, a future
// one included.
func KindsCounting(w kind.Windows) (kinds []kind.Kind, collectors string) {
	var names []string
	for _, k := range kind.All {
		if k.Windows == w {
			kinds = append(kinds, k)
			names = append(names, k.Name)
		}
	}
	return kinds, "    collectors: [" + strings.Join(names, ", ") + "]\n"
}
