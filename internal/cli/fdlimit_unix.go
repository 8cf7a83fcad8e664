//go:build unix

package cli

import "syscall"

// descriptorLimit is RLIMIT_NOFILE's soft value, which Go raises to the hard one at start.
func descriptorLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return uint64(rl.Cur), true // Cur is an int64 on some systems
}
