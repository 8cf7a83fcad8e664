// Package atomicfile writes a file whole or not at all: the exporter's
// state file and ledger and the backfill's output are read by other
// processes (a restart, promtool) that must never see half of one.
//
// It never replaces what is not a file of ours: a path that exists as a
// symbolic link, a device, a FIFO, a socket or a directory is refused
// (CheckTarget, and Write checks again), and the temporary files a crash
// may leave behind are named after their target so that RemoveStale can
// find them. Files it creates (Write, Create) are mode 0600 and, created
// by root, get their directory's owner (create.go); a file of ours that
// cannot be read is kept aside rather than replaced (MoveAside).
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/boundedfile"
)

// Write calls write on a temporary file next to path, syncs it, renames it
// to path and syncs the directory, so that path holds either what it held
// before or all of what write wrote, across a crash too. The temporary
// file is removed if anything fails. A path that exists and is not a
// regular file is refused and left alone. Errors name path, never the
// temporary file, so the same failure reads the same each time.
//
// A file that exists keeps its owner, group and permission bits: the new
// one is given them before the rename, and when this process may not
// give it that owner (a user rewriting root's file) the write is refused
// with an *OwnerError and the old file is left as it was. A new file has
// mode 0600 and, written by root, its directory's owner and group (see
// Create).
func Write(path string, write func(io.Writer) error) error {
	if err := CheckTarget(path); err != nil {
		return err
	}
	old, err := os.Lstat(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPrefix(path)+"*"+tempSuffix)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	defer os.Remove(tmp.Name()) // harmless after the rename
	fail := func(err error) error {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	if err := write(tmp); err != nil {
		return fail(err)
	}
	if old != nil {
		if err := keepOwner(tmp, path, old); err != nil {
			var oe *OwnerError
			if errors.As(err, &oe) {
				tmp.Close()
				return err
			}
			return fail(err)
		}
	} else if err := giveDirOwner(tmp, dir); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself survives a crash
		d.Close()
	}
	return nil
}

// unwrapPath drops the *fs.PathError around err, whose path is the
// temporary file's, keeping the operating system's error.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

const tempSuffix = ".tmp"

// tempPrefix is the start of the name of path's temporary files.
func tempPrefix(path string) string { return "." + filepath.Base(path) + "." }

// NotRegularError is a path that exists as something other than a
// regular file, which a write would replace.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; refusing to replace it", e.Path, boundedfile.Kind(e.Mode))
}

// CheckTarget reports whether path may be written: it does not exist, or
// is a regular file (a symbolic link is not followed: it is refused).
// The error of a path that is something else is a *NotRegularError.
func CheckTarget(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return nil
}

// RemoveStale removes the temporary files that writes of path left behind
// (a process killed while writing), and returns their names. Only regular
// files named as Write names them are touched. The caller must be the
// only writer of path, or it could remove a write in progress.
func RemoveStale(path string) ([]string, error) {
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, tempSuffix) ||
			len(name) <= len(prefix)+len(tempSuffix) || strings.ContainsAny(name[len(prefix):len(name)-len(tempSuffix)], ".") {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return removed, err
		}
		removed = append(removed, name)
	}
	return removed, nil
}

// OwnerError is a rewrite refused because the new file could not keep
// the old one's owner and group.
type OwnerError struct {
	Path     string
	UID, GID int
	Err      error
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("%s belongs to uid %d, gid %d, an owner this process (uid %d) cannot give the file it would replace it with (%v); refusing to change its owner: run this as that user, or as root",
		e.Path, e.UID, e.GID, os.Geteuid(), e.Err)
}

func (e *OwnerError) Unwrap() error { return e.Err }
