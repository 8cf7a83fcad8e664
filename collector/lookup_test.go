package collector

import "github.com/mintlify-exporter/mintlify_exporter/internal/spec"

// fetchedOf is the code of the collector named name if it is fetched whole.
func fetchedOf(name string) (spec.Fetched, bool) {
	k, _ := Lookup(name)
	return k.Fetched, k.Fetched != nil
}

// walkedOf is the walk of the collector named name if it is walked page by page.
func walkedOf(name string) (spec.Walked, bool) {
	if k, _ := Lookup(name); k.Walked != nil {
		return *k.Walked, true
	}
	return spec.Walked{}, false
}
