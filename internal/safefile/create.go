package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The files the exporter and the backfill keep beside a state path or an
// output (the state file, its ledger, lock and owner file, the backfill's
// journal and output) are created here or by Write, mode 0600 whatever
// the umask. One that root creates gets the owner and group of its
// directory: a root backfill into the state directory of a service that
// runs as another user (the service's own files absent yet) leaves files
// the service can open and replace. Files that exist keep their owner
// (Write).

// Create opens path as os.OpenFile does with flag, which holds
// os.O_CREATE: a file it creates has mode 0600 and, created by root, the
// owner and group of its directory (see above). With os.O_EXCL in flag,
// a file that exists is an fs.ErrExist error, as with os.OpenFile.
func Create(path string, flag int) (*os.File, error) {
	if flag&os.O_CREATE == 0 {
		return nil, fmt.Errorf("safefile.Create %s: flag without os.O_CREATE", path)
	}
	excl := flag&os.O_EXCL != 0
	for range 3 { // a file removed between the two opens is tried again
		f, err := os.OpenFile(path, flag|os.O_EXCL, 0o600)
		if err == nil {
			if err := settle(f, filepath.Dir(path)); err != nil {
				f.Close()
				return nil, err
			}
			return f, nil
		}
		if excl || !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		f, err = os.OpenFile(path, flag&^os.O_CREATE, 0)
		if !errors.Is(err, fs.ErrNotExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("opening %s: the file kept appearing and disappearing", path)
}

// settle gives f, a file just created in dir, mode 0600 and, when this
// process is root, dir's owner and group.
func settle(f *os.File, dir string) error {
	if err := giveDirOwner(f, dir); err != nil {
		return fmt.Errorf("giving %s the owner of %s: %w", f.Name(), dir, unwrapPath(err))
	}
	return f.Chmod(0o600) // after chown, which may clear bits
}
