//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos)

package safefile

import "os"

// Lock does nothing where flock(2) is missing.
func Lock(*os.File, bool) error { return nil }

// Unlock does nothing where flock(2) is missing.
func Unlock(*os.File) error { return nil }

// TryLock always succeeds where flock(2) is missing.
func TryLock(*os.File) (bool, error) { return true, nil }
