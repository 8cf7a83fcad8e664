package collector

import (
	"fmt"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// MaxStoredCount is far above any site's month and far below where a float64 stops counting by ones.
const MaxStoredCount = 1e12

func checkCount(what string, v float64) error {
	if !(v >= 0 && v <= MaxStoredCount) {
		return fmt.Errorf("%s: count %g out of range 0..%g", what, v, float64(MaxStoredCount))
	}
	return nil
}

func checkCounts(where string, counts map[string]float64) error {
	for name, v := range counts {
		if err := checkCount(where+name, v); err != nil {
			return err
		}
	}
	return nil
}

func checkNames(what string, l []NamedCount, max int, ok func(string) bool) error {
	if len(l) > max {
		return fmt.Errorf("%s: %d names, at most %d", what, len(l), max)
	}
	seen := make(map[string]bool, len(l))
	for _, c := range l {
		if seen[c.Name] || !ok(c.Name) {
			return fmt.Errorf("%s: name %q repeated or not as the API's are sanitised", what, mintlify.ScrubText(c.Name, ""))
		}
		seen[c.Name] = true
		if err := checkCount(what, c.Count); err != nil {
			return err
		}
	}
	return nil
}

func sanitisedCategory(c string) bool {
	s, _ := mintlify.Category(c)
	return s == c
}

func checkInts(what string, vs ...int) error {
	for _, v := range vs {
		if v < 0 || float64(v) > MaxStoredCount {
			return fmt.Errorf("%s: %d out of range", what, v)
		}
	}
	return nil
}

func checkWalk(w *mintlify.CursorWalk) error {
	if err := w.Check(); err != nil {
		return fmt.Errorf("walk: %w", err)
	}
	return nil
}
