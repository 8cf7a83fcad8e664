package dashboards_test

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// metricsDoc is the page that lists every metric of the exporter.
const metricsDoc = "../docs/metrics.md"

// TestMetricsDocumented keeps the table of docs/metrics.md and the
// exporter's real output in step: every mintlify_* metric the exporter
// exposes has a row, and every row names a metric the exporter exposes.
func TestMetricsDocumented(t *testing.T) {
	b, err := os.ReadFile(metricsDoc)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `(mintlify_[a-z0-9_]+)` \\|")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		documented[m[1]] = true
	}
	if len(documented) < 10 {
		t.Fatalf("%s: only %d metric rows found; has the table's layout changed?", metricsDoc, len(documented))
	}
	exposed := exposedMetricNames(t)
	var missing []string
	for n := range exposed {
		if !strings.HasPrefix(n, "mintlify_") {
			continue
		}
		if base, ok := histogramBase(n); ok && exposed[base+"_bucket"] {
			n = base
		}
		if !documented[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	for _, n := range missing {
		t.Errorf("%s has no row for %s, which the exporter exposes", metricsDoc, n)
	}
	for n := range documented {
		if !exposed[n] && !exposed[n+"_bucket"] {
			t.Errorf("%s documents %s, which the exporter does not expose", metricsDoc, n)
		}
	}
}

// histogramBase strips the suffix of a histogram's series.
func histogramBase(name string) (string, bool) {
	for _, s := range []string{"_bucket", "_sum", "_count"} {
		if strings.HasSuffix(name, s) {
			return strings.TrimSuffix(name, s), true
		}
	}
	return "", false
}
