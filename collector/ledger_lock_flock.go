//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package collector

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an exclusive flock(2) on f, waiting for it.
func flock(f *os.File) error {
	return retryEINTR(func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) })
}

func funlock(f *os.File) error {
	return retryEINTR(func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) })
}

func retryEINTR(fn func() error) error {
	for {
		err := fn()
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
