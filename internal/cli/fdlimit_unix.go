//go:build unix

package cli

import "syscall"

// descriptorLimit is the process's open-file limit (RLIMIT_NOFILE's soft
// value, which Go raises to the hard one at start), and whether it could
// be read. Unlimited reads as a huge number (RLIM_INFINITY), which
// connCap holds to maxConnsBound.
func descriptorLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return uint64(rl.Cur), true // Cur is an int64 on some systems
}
