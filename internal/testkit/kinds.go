package testkit

import (
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// KindsCounting are the collectors of all that count over w (for
// example spec.MonthAndWindows), and the project configuration line that
// turns them on, so that a test of them runs every such kind, a future
// one included.
func KindsCounting(all spec.List, w spec.Windows) (kinds []spec.Collector, collectors string) {
	var names []string
	for _, k := range all {
		if k.Windows == w {
			kinds = append(kinds, k)
			names = append(names, k.Name)
		}
	}
	return kinds, "    collectors: [" + strings.Join(names, ", ") + "]\n"
}
