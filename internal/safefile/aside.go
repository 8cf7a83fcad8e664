package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// An unreadable file of ours is kept aside, not overwritten, so what it held can still be looked at.
const (
	// KeepAside is how many files moved aside are kept, per path.
	KeepAside = 3
	asideTag  = ".corrupt-"
	asideTime = "20060102T150405.000Z"
)

// MoveAside renames path to PATH.corrupt-<UTC time> and keeps only the KeepAside newest such files.
func MoveAside(path string, now time.Time) (string, error) {
	aside := path + asideTag + now.UTC().Format(asideTime)
	if err := os.Rename(path, aside); err != nil {
		return "", err
	}
	pruneAside(path)
	return aside, nil
}

// Curable reports a read error that moving the file aside cures: too large, or refused by the system
// (permission, I/O error). Not a missing file, nor one not regular, nor a failure that another try may not meet.
func Curable(err error) bool {
	var large *TooLargeError
	return errors.As(err, &large) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EIO)
}

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
