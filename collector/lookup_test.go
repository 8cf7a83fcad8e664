package collector

import "github.com/mintlify-exporter/mintlify_exporter/internal/spec"

// fetchedOf is the code of the collector named name if it is fetched whole.
func fetchedOf(name string) (spec.Fetched, bool) {
	k, _ := Lookup(name)
	return k.Fetched, k.Fetched != nil
}

// walkedOf is the walk of the collector named name if it is walked page by page.
func walkedOf(name string) (walked, bool) {
	k, _ := Lookup(name)
	switch w := k.Fetched.(type) {
	case walked:
		return w, true
	case pageViewsWalk:
		return w.walked, true
	}
	return walked{}, false
}
