//go:build !unix

package safefile

import "os"

func openNoBlock(path string) (*os.File, error) { return os.Open(path) }

// noFollowNoBlock: no such flags here; the lstat before an open and the
// fstat after it still refuse what is not a regular file.
const noFollowNoBlock = 0

func openDirNoFollow(path string) (*os.File, error) { return os.Open(path) }
