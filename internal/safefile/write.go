package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Begin starts writing path whole (temporary file, sync, rename, directory sync); an existing file keeps its owner, or Commit refuses.
func Begin(path string) (*Pending, error) {
	if err := CheckTarget(path); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*"+tempSuffix)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	return &Pending{path: path, tmp: tmp}, nil
}

// Write writes data whole to path.
func Write(path string, data []byte) error {
	p, err := Begin(path)
	if err != nil {
		return err
	}
	if _, err := p.Write(data); err != nil {
		p.Abort()
		return err
	}
	return p.Commit()
}

// Pending is a write of a file whole that Commit completes.
type Pending struct {
	path string
	tmp  *os.File
	done bool
}

// Write appends b to what Commit will put at the path.
func (p *Pending) Write(b []byte) (int, error) {
	n, err := p.tmp.Write(b)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", p.path, unwrapPath(err))
	}
	return n, err
}

// Abort drops the write; it does nothing after Commit.
func (p *Pending) Abort() {
	if p.done {
		return
	}
	p.done = true
	p.tmp.Close()
	os.Remove(p.tmp.Name())
}

// Commit puts what was written at the path, whole; the temporary file is gone after it.
func (p *Pending) Commit() error {
	if p.done {
		return fmt.Errorf("writing %s: the write was already committed or aborted", p.path)
	}
	p.done = true
	tmp, path := p.tmp, p.path
	defer os.Remove(tmp.Name()) // harmless after the rename
	fail := func(err error) error {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, unwrapPath(err))
	}
	// Again: the path may have changed since Begin.
	if err := CheckTarget(path); err != nil {
		tmp.Close()
		return err
	}
	old, err := os.Lstat(path)
	if err != nil && !os.IsNotExist(err) {
		return fail(err)
	}
	dir := filepath.Dir(path)
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

// unwrapPath drops the temporary file's name so the same failure reads the same each time.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

const tempSuffix = ".tmp"

func tempPrefix(path string) string { return "." + filepath.Base(path) + "." }

// NotRegularTargetError is a path that exists as something a write would replace.
type NotRegularTargetError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularTargetError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; refusing to replace it", e.Path, Kind(e.Mode))
}

// CheckTarget refuses a path that exists as anything but a regular file, a symbolic link included.
func CheckTarget(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return &NotRegularTargetError{Path: path, Mode: fi.Mode()}
	}
	return nil
}

// RemoveStale removes the temporary files a killed write of path left; the caller must be path's only writer.
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

// OwnerError is a rewrite refused because the new file could not keep the old one's owner.
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
