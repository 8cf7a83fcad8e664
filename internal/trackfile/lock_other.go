//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos)

package trackfile

import "os"

// lock is a no-op where flock(2) is missing: appends are still single
// writes with O_APPEND, but two writers of the same id may both add it
// (Read de-duplicates).
func lock(*os.File, bool) error { return nil }

func unlock(*os.File) error { return nil }
