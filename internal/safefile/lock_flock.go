//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package safefile

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes flock(2) on f, exclusive or shared, waiting for it.
func Lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	return retryEINTR(func() error { return syscall.Flock(int(f.Fd()), how) })
}

// Unlock releases the lock; closing f would release it as well.
func Unlock(f *os.File) error {
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

// TryLock takes an exclusive flock(2) on f without waiting: false when another holds it.
func TryLock(f *os.File) (bool, error) {
	err := retryEINTR(func() error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) })
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
