//go:build !unix

package safefile

import (
	"io/fs"
	"os"
)

// keepOwner keeps the old file's permission bits where files have no
// owner this package can set.
func keepOwner(tmp *os.File, _ string, old fs.FileInfo) error {
	return tmp.Chmod(old.Mode().Perm())
}

// giveDirOwner does nothing where files have no owner this package can
// set.
func giveDirOwner(*os.File, string) error { return nil }
