//go:build !unix

package backfill

// noFollowNoBlock: no such open flags here; the lstat before the open
// and the comparison after it still refuse what is not a regular file.
const noFollowNoBlock = 0
