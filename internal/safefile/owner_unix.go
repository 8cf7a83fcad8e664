//go:build unix

package safefile

import (
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

// giveDirOwner gives f, a file this process created in dir, the owner
// and group of dir when this process is root (see Create); others create
// files as themselves, which is what they can open again.
func giveDirOwner(f *os.File, dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	di, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := di.Sys().(*syscall.Stat_t)
	if !ok || (st.Uid == 0 && st.Gid == 0) {
		return nil
	}
	return f.Chown(int(st.Uid), int(st.Gid))
}
