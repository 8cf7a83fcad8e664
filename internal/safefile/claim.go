package safefile

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// Claim makes this process the one owner of what owner guards: the flock on owner owns, not the file, so a
// lock still held on a deleted owner file refuses as well (DeletedHolders). It writes "pid N" for the next claimant.
func Claim(owner string) (*os.File, error) {
	f, err := Create(owner, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	got, err := TryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", owner, err)
	}
	if !got {
		pid := ownerPID(f)
		f.Close()
		return nil, &ClaimError{Path: owner, PID: pid}
	}
	if pids := DeletedHolders(owner); len(pids) > 0 {
		_ = Unlock(f)
		f.Close()
		return nil, &ClaimError{Path: owner, PID: pids[0], Deleted: true}
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// ownerPID falls back on the lock's holder for an owner file that names none (written by an older version).
func ownerPID(f *os.File) int {
	if b, err := ReadAll(f, "owner file", 64); err == nil {
		if pid, err := strconv.Atoi(string(bytes.TrimSpace(bytes.TrimPrefix(b, []byte("pid "))))); err == nil && pid > 0 {
			return pid
		}
	}
	if pids := Holders(f); len(pids) == 1 {
		return pids[0]
	}
	return 0
}

// ClaimError is an owner file another process holds; PID is 0 when the system does not say which.
type ClaimError struct {
	Path    string
	PID     int
	Deleted bool // the holder's lock is on a file since deleted from Path
}

func (e *ClaimError) Error() string {
	if e.Deleted {
		return fmt.Sprintf("process %d holds the lock of %s, which was deleted while it ran", e.PID, e.Path)
	}
	return fmt.Sprintf("%s holds %s", e.Holder(), e.Path)
}

// Holder is "process N", or "another process" when the pid is unknown.
func (e *ClaimError) Holder() string {
	if e.PID > 0 {
		return "process " + strconv.Itoa(e.PID)
	}
	return "another process"
}
