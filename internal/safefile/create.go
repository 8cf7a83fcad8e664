package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The files the exporter, the backfill, `jobs` and the receiver keep (the
// state files, their ledger, lock and owner file, the backfill's journal
// and output, the tracked-jobs file, the audit log) are created here or by
// Write, mode 0600 whatever the umask, and their directories by MkdirAll.
// One that root creates gets the owner and group of its directory: a root
// backfill or `jobs create --track` in the state directory of a service
// that runs as another user leaves files the service can open and
// replace. Files that exist keep their owner (Write).

// Create opens path as os.OpenFile does with flag, which holds
// os.O_CREATE, never through a symbolic link and without blocking:
// anything but a regular file (a link, even one to a regular file, a
// FIFO, a directory, a device) is refused with a *NotRegularError, so
// that root never writes where a link points. A file it creates has mode
// 0600 and, created by root, the owner and group of its directory (see
// above). With os.O_EXCL in flag, a file that exists is an fs.ErrExist
// error, as with os.OpenFile.
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

// refusal is the error of a failed open of path: a *NotRegularError when
// path is not a regular file (O_NOFOLLOW's ELOOP, a FIFO's ENXIO, a
// directory's EISDIR), else err.
func refusal(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Op: "open", Mode: fi.Mode()}
	}
	return err
}

// checkRegular closes f and refuses it when fstat says it is not a
// regular file (one put at path since the lstat).
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

// settle gives f, a file just created in dir, mode 0600 and, when this
// process is root, dir's owner and group.
func settle(f *os.File, dir string) error {
	if err := giveDirOwner(f, dir); err != nil {
		return fmt.Errorf("giving %s the owner of %s: %w", f.Name(), dir, unwrapPath(err))
	}
	return f.Chmod(0o600) // after chown, which may clear bits
}

// MkdirAll makes dir and its missing parents as os.MkdirAll does, each
// with mode perm whatever the umask and, made by root, the owner and
// group of the directory it is made in, as Create gives files. A
// directory that exists is left as it is.
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
