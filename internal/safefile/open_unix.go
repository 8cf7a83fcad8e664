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
