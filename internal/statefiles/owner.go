package statefiles

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// claim makes this the one exporter on path's files (two would each spend the whole budget). The flock on
// STATE.owner owns, not the file: a deleted owner file still refuses a second exporter (DeletedHolders).
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
	f, err := safefile.Create(owner, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("--storage.path: %w", err)
	}
	got, err := safefile.TryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--storage.path: locking %s: %w", owner, err)
	}
	if !got {
		holder := "another process"
		if b, err := safefile.ReadAll(f, "owner file", 64); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(bytes.TrimPrefix(b, []byte("pid "))))); err == nil && pid > 0 {
				holder = "process " + strconv.Itoa(pid)
			}
		}
		f.Close()
		return nil, fmt.Errorf("--storage.path %s is in use by another exporter (%s holds %s): give each exporter its own --storage.path; to split a key's budget between exporters, set each one's share of the key", path, holder, owner)
	}
	if pids := safefile.DeletedHolders(owner); len(pids) > 0 {
		_ = safefile.Unlock(f)
		f.Close()
		return nil, fmt.Errorf("--storage.path %s is in use by another exporter (process %d holds the lock of %s, which was deleted while it ran): stop it first; give each exporter its own --storage.path", path, pids[0], owner)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
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
