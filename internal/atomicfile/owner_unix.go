//go:build unix

package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives tmp the owner, group and permission bits of the file
// old describes (what path held), so that a rewrite by another user (a
// root backfill on the service's ledger) leaves the file usable by the
// user who owns it. When this process may not give the file that owner,
// it refuses: a file the owner could no longer write is worse than no
// write.
func keepOwner(tmp *os.File, path string, old fs.FileInfo) error {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return tmp.Chmod(old.Mode().Perm())
	}
	fi, err := tmp.Stat()
	if err != nil {
		return err
	}
	if cur, ok := fi.Sys().(*syscall.Stat_t); !ok || cur.Uid != st.Uid || cur.Gid != st.Gid {
		if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return &OwnerError{Path: path, UID: int(st.Uid), GID: int(st.Gid), Err: unwrapPath(err)}
		}
	}
	return tmp.Chmod(old.Mode().Perm()) // after chown, which may clear bits
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
