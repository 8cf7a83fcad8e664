package filelock

import (
	"bufio"
	"fmt"
	"io"
	"os"
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
	want := fmt.Sprintf("%02x:%02x:%d", major(dev), minor(dev), ino)
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

// major and minor split a Linux device number as the kernel encodes it.
func major(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff) }
func minor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^uint64(0xff) }
