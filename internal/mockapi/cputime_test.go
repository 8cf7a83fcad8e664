//go:build unix

package mockapi

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used. Unlike wall time it does
// not grow when other processes compete for the CPU, so a bound on it
// holds on a loaded machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
