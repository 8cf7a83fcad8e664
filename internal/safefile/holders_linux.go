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

// maxLocksBytes: a busy host lists a few thousand locks of about 60 bytes each.
const maxLocksBytes = 4 << 20

// Holders returns the pids holding a flock(2) lock on f's file, per /proc/locks (none in another pid namespace).
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

func holdersOf(dev, ino uint64) []int {
	pl, err := os.Open("/proc/locks")
	if err != nil {
		return nil
	}
	defer pl.Close()
	return parseLocks(io.LimitReader(pl, maxLocksBytes), dev, ino)
}

// parseLocks skips waiters ("->") and takes the FLOCK lines on dev:ino, the device as hex major:minor.
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

func fileID(dev, ino uint64) string {
	return fmt.Sprintf("%02x:%02x:%d", major(dev), minor(dev), ino)
}

func major(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff) }
func minor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^uint64(0xff) }

const (
	maxProcesses = 4096
	maxFDs       = 65536
)

// DeletedHolders returns the pids holding a flock(2) lock on a file deleted from path, which a new file there no longer meets.
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
