package statefiles

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// claim makes this the one exporter on path's files: two would each spend the whole budget.
func claim(path string, l *Ledger, log *slog.Logger) (*os.File, error) {
	owner := path + ".owner"
	for _, p := range []string{path, l.Path(), l.LockPath(), owner} {
		if err := safefile.CheckTarget(p); err != nil {
			return nil, fmt.Errorf("--storage.path: %w; give the path of a regular file (or an empty --storage.path to keep no state)", err)
		}
	}
	if err := safefile.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("--storage.path: %w", err)
	}
	f, err := safefile.Claim(owner)
	var held *safefile.ClaimError
	switch {
	case errors.As(err, &held) && held.Deleted:
		return nil, fmt.Errorf("--storage.path %s is in use by another exporter (%v): stop it first; give each exporter its own --storage.path", path, held)
	case errors.As(err, &held):
		return nil, fmt.Errorf("--storage.path %s is in use by another exporter (%v): give each exporter its own --storage.path; to split a key's budget between exporters, set each one's share of the key", path, held)
	case err != nil:
		return nil, fmt.Errorf("--storage.path: %w", err)
	}
	for _, p := range []string{path, l.Path()} {
		removed, err := safefile.RemoveStale(p)
		if len(removed) > 0 {
			log.Info("removed temporary files an interrupted save left behind", "path", p, "files", len(removed))
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			log.Warn("could not remove temporary files an interrupted save left behind", "path", p, "err", err)
		}
	}
	return f, nil
}
