package trackfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckPath reports why path cannot be a tracked-jobs file, at start
// rather than at the first job: it exists and is not a regular file, or
// it does not exist yet and neither does its directory.
func CheckPath(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return errors.New("not a regular file")
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("its directory %s does not exist: %w", dir, fs.ErrNotExist)
	case err != nil:
		return err
	case !di.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}
