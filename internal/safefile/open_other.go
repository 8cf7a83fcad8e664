//go:build !unix

package safefile

import "os"

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }

// noFollowNoBlock: no such flags here; the lstat before and fstat after an open still refuse non-regular files.
const noFollowNoBlock = 0

func openDirNoFollow(path string) (*os.File, error) { return os.Open(path) }
