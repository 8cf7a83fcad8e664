package safefile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// maxLocksBytes bounds what is read of /proc/locks: a busy host lists a
// few thousand locks of about 60 bytes each.
const maxLocksBytes = 4 << 20

// Holders returns the ids of the processes that hold a flock(2) lock on
// the file f is open on, as /proc/locks tells them, f's own process
// included; none when that cannot be told. A process in another pid
// namespace is not named.
func Holders(f *os.File) []int {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return holdersOf(uint64(st.Dev), st.Ino)
}

// holdersOf returns the pids of /proc/locks's FLOCK lines on the file of
// device dev and inode ino.
func holdersOf(dev, ino uint64) []int {
	pl, err := os.Open("/proc/locks")
	if err != nil {
		return nil
	}
	defer pl.Close()
	return parseLocks(io.LimitReader(pl, maxLocksBytes), dev, ino)
}

// parseLocks reads /proc/locks lines such as
//
//	1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF
//	2: FLOCK  ADVISORY  WRITE 4243 08:01:1234 0 EOF   (one "->" blocked waiter: "2: -> FLOCK ...")
//
// and returns the pids of the FLOCK locks granted on dev:ino (the device
// as major:minor in hex), each once.
func parseLocks(r io.Reader, dev, ino uint64) []int {
	want := fileID(dev, ino)
	var pids []int
	seen := map[int]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != want {
			continue // a waiter ("->"), another kind of lock, or another file
		}
		pid, err := strconv.Atoi(fields[4])
		if err == nil && pid > 0 && !seen[pid] {
			seen[pid] = true
			pids = append(pids, pid)
		}
	}
	return pids
}

// fileID is a file as /proc/locks names it: its device as major:minor in
// hex, and its inode.
func fileID(dev, ino uint64) string {
	return fmt.Sprintf("%02x:%02x:%d", major(dev), minor(dev), ino)
}

// major and minor split a Linux device number as the kernel encodes it.
func major(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff) }
func minor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^uint64(0xff) }

// Bounds of DeletedHolders's look at the processes holding locks.
const (
	maxProcesses = 4096
	maxFDs       = 65536
)

// DeletedHolders returns the ids of the processes that hold a flock(2)
// lock on a file that was at path and has been deleted since (the kernel
// names an open file that lost its name "PATH (deleted)"): a lock whose
// file a new one at path no longer meets. It needs /proc/locks and the
// right to read those processes' /proc/PID/fd (the same user, or root);
// a process it cannot see is not named.
func DeletedHolders(path string) []int {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	pl, err := os.Open("/proc/locks")
	if err != nil {
		return nil
	}
	locks := flockFiles(io.LimitReader(pl, maxLocksBytes))
	pl.Close()
	var pids []int
	for pid, files := range locks {
		if holdsDeleted(pid, abs+" (deleted)", files) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// flockFiles reads /proc/locks into the files ("maj:min:ino") each pid
// holds a granted FLOCK lock on, for at most maxProcesses pids.
func flockFiles(r io.Reader) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || pid <= 0 {
			continue
		}
		if out[pid] == nil {
			if len(out) >= maxProcesses {
				continue
			}
			out[pid] = map[string]bool{}
		}
		out[pid][fields[5]] = true
	}
	return out
}

// holdsDeleted reports whether process pid has a descriptor open on
// target ("PATH (deleted)") whose file is one of those it locks.
func holdsDeleted(pid int, target string, files map[string]bool) bool {
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd"
	d, err := os.Open(fdDir)
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(maxFDs)
	d.Close()
	for _, n := range names {
		fd := fdDir + "/" + n
		if link, err := os.Readlink(fd); err != nil || link != target {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(fd, &st) == nil && files[fileID(uint64(st.Dev), st.Ino)] {
			return true
		}
	}
	return false
}
