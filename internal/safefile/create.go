package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Created by root, a file or directory gets its directory's owner, so a root backfill or
// `jobs create --track` in a service's state directory leaves files the service can use.

// Create opens path (flag holds os.O_CREATE) never through a symbolic link and never blocking on a FIFO,
// so root never writes where a link points; it refuses non-regular files, and a new file is 0600.
func Create(path string, flag int) (*os.File, error) {
	if flag&os.O_CREATE == 0 {
		return nil, fmt.Errorf("safefile.Create %s: flag without os.O_CREATE", path)
	}
	excl := flag&os.O_EXCL != 0
	flag |= noFollowNoBlock
	for range 3 { // a file removed between the two opens is tried again
		f, err := os.OpenFile(path, flag|os.O_EXCL, 0o600)
		if err == nil {
			if err := settle(f, filepath.Dir(path)); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		if excl && errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, refusal(path, err)
		}
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, &NotRegularError{Path: path, Op: "open", Mode: fi.Mode()} // never opened
		}
		f, err = os.OpenFile(path, flag&^os.O_CREATE, 0)
		if err == nil {
			return f, checkRegular(f, path)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, refusal(path, err)
		}
	}
	return nil, fmt.Errorf("opening %s: the file kept appearing and disappearing", path)
}

func refusal(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Op: "open", Mode: fi.Mode()}
	}
	return err
}

// checkRegular refuses what fstat says is not regular: something put at path since the lstat.
func checkRegular(f *os.File, path string) error {
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &NotRegularError{Path: path, Op: "open", Mode: fi.Mode()}
	}
	if err != nil {
		f.Close()
	}
	return err
}

func settle(f *os.File, dir string) error {
	if err := giveDirOwner(f, dir); err != nil {
		return fmt.Errorf("giving %s the owner of %s: %w", f.Name(), dir, unwrapPath(err))
	}
	return f.Chmod(0o600) // after chown, which may clear bits
}

// MkdirAll is os.MkdirAll with perm whatever the umask and, made by root, the parent's owner.
func MkdirAll(dir string, perm os.FileMode) error {
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("making directory %s: it exists and is not a directory", dir)
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := MkdirAll(parent, perm); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, perm); err != nil {
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return nil // made meanwhile by another process: not ours to settle
		}
		return err
	}
	d, err := openDirNoFollow(dir)
	if err != nil {
		return fmt.Errorf("making directory %s: %w", dir, unwrapPath(err))
	}
	defer d.Close()
	if err := giveDirOwner(d, parent); err != nil {
		return fmt.Errorf("giving %s the owner of %s: %w", dir, parent, unwrapPath(err))
	}
	return d.Chmod(perm) // after chown, and whatever the umask
}
