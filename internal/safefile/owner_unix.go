//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner refuses when it cannot keep old's owner: a file its owner could no longer write is worse than no write.
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

// giveDirOwner acts only for root; others create files as themselves, which they can open again.
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
