//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNoBlock does not wait for a FIFO's writer, so the type check after it can refuse the FIFO.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// noFollowNoBlock: every open for writing fails on a symbolic link rather than follow it, and never blocks on a FIFO.
const noFollowNoBlock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func openDirNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
}
