//go:build !unix

package trackfile

import "os"

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
