//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without waiting for a FIFO's writer,
// so that the type check after it can refuse the FIFO.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// noFollowNoBlock are the flags of every open for writing: a symbolic link
// fails the open instead of being followed, and a FIFO does not block it.
const noFollowNoBlock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// openDirNoFollow opens the directory path itself, never a link put there.
func openDirNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
}
