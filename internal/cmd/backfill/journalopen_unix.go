//go:build unix

package backfill

import "syscall"

// noFollowNoBlock are the open(2) flags of the journal: a symbolic link
// put at the path after it was checked fails the open (ELOOP) instead of
// being followed, and a FIFO put there does not block it.
const noFollowNoBlock = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
