package safefile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A file of ours that cannot be read (the ledger, the state file) would
// be replaced by the next write, and what it held lost to anyone who
// wants to look at it. MoveAside keeps it instead, as PATH.corrupt-<time>,
// and only the KeepAside newest of them.
const (
	// KeepAside is how many files moved aside are kept, per path.
	KeepAside = 3
	asideTag  = ".corrupt-"
	asideTime = "20060102T150405.000Z"
)

// MoveAside renames path to PATH.corrupt-<now, UTC> and removes all but
// the KeepAside newest files moved aside from path. It returns the new
// name. Only regular files named so are removed.
func MoveAside(path string, now time.Time) (string, error) {
	aside := path + asideTag + now.UTC().Format(asideTime)
	if err := os.Rename(path, aside); err != nil {
		return "", err
	}
	pruneAside(path)
	return aside, nil
}

// pruneAside removes all but the KeepAside newest files moved aside from
// path (their names sort by time).
func pruneAside(path string) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+asideTag
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), prefix) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for len(names) > KeepAside {
		_ = os.Remove(filepath.Join(dir, names[0]))
		names = names[1:]
	}
}
