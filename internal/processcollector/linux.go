//go:build linux

package processcollector

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/procfs"
)

// descs are client_golang's process descriptions, named and worded as its
// collector names them (a test compares the two).
type descs struct {
	cpuTotal, openFDs, maxFDs, vsize, maxVsize, rss, startTime, inBytes, outBytes *prometheus.Desc
}

func newDescs() descs {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }
	return descs{
		cpuTotal:  d("process_cpu_seconds_total", "Total user and system CPU time spent in seconds."),
		openFDs:   d("process_open_fds", "Number of open file descriptors."),
		maxFDs:    d("process_max_fds", "Maximum number of open file descriptors."),
		vsize:     d("process_virtual_memory_bytes", "Virtual memory size in bytes."),
		maxVsize:  d("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes."),
		rss:       d("process_resident_memory_bytes", "Resident memory size in bytes."),
		startTime: d("process_start_time_seconds", "Start time of the process since unix epoch in seconds."),
		inBytes:   d("process_network_receive_bytes_total", "Number of bytes received by the process over the network."),
		outBytes:  d("process_network_transmit_bytes_total", "Number of bytes sent by the process over the network."),
	}
}

func (d descs) describe(ch chan<- *prometheus.Desc) {
	for _, x := range []*prometheus.Desc{d.cpuTotal, d.openFDs, d.maxFDs, d.vsize, d.maxVsize, d.rss, d.startTime, d.inBytes, d.outBytes} {
		ch <- x
	}
}

// userHZ is the unit of the CPU times in /proc/<pid>/stat. Linux reports
// them in USER_HZ, 100 on every architecture it supports for user space;
// procfs and so client_golang use the same constant.
const userHZ = 100

// procSuperMagic is procfs's f_type in statfs(2).
const procSuperMagic = 0x9fa0

// Bounds of the two files read per scrape. /proc/<pid>/stat is one line
// of about 300 bytes (the command name is at most 16); netstat is about
// 4 KiB on current kernels.
const (
	maxStatBytes    = 4 << 10
	maxNetstatBytes = 64 << 10
)

type collector struct {
	descs
	dir      string // /proc/<pid>
	pageSize float64
	// fdSize tells that dir is on procfs, whose fd directory's size is
	// its number of entries (Linux 6.2 and later; 0 before).
	fdSize bool
	// startSeconds is read once; startOK is false if it could not be.
	startSeconds float64
	startOK      bool
	// getrlimit is syscall.Getrlimit; tests replace it.
	getrlimit func(resource int, rlim *syscall.Rlimit) error
	bufs      sync.Pool
}

// New returns the lean collector for this process, or client_golang's if
// this process's /proc cannot be read.
func New() prometheus.Collector { return newFor("/proc", os.Getpid()) }

// newFor is New with procfs mounted at root.
func newFor(root string, pid int) prometheus.Collector {
	dir := fmt.Sprintf("%s/%d", root, pid)
	if _, err := os.Stat(dir + "/stat"); err != nil {
		return collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})
	}
	c := newCollector(dir)
	var fs syscall.Statfs_t
	c.fdSize = syscall.Statfs(dir, &fs) == nil && fs.Type == procSuperMagic
	if fs, err := procfs.NewFS(root); err == nil {
		if p, err := fs.Proc(pid); err == nil {
			if st, err := p.Stat(); err == nil {
				c.startSeconds, err = st.StartTime()
				c.startOK = err == nil
			}
		}
	}
	return c
}

func newCollector(dir string) *collector {
	return &collector{
		descs:     newDescs(),
		dir:       dir,
		pageSize:  float64(os.Getpagesize()),
		getrlimit: syscall.Getrlimit,
		bufs:      sync.Pool{New: func() any { b := make([]byte, maxNetstatBytes+1); return &b }},
	}
}

// Describe sends the nine descriptions.
func (c *collector) Describe(ch chan<- *prometheus.Desc) { c.describe(ch) }

// Collect reads the process's figures; what cannot be read is left out.
// It reads everything first and then sends the series together, so that
// the registry's gathering goroutine is woken once for them, not once
// per file read.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	bp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bp)
	buf := *bp

	var out [9]prometheus.Metric
	ms := out[:0]
	add := func(d *prometheus.Desc, t prometheus.ValueType, v float64) {
		ms = append(ms, prometheus.MustNewConstMetric(d, t, v))
	}
	if b, err := readBounded(c.dir+"/stat", buf[:maxStatBytes+1]); err == nil {
		if st, err := parseStat(b); err == nil {
			add(c.cpuTotal, prometheus.CounterValue, float64(st.utime+st.stime)/userHZ)
			add(c.vsize, prometheus.GaugeValue, float64(st.vsize))
			add(c.rss, prometheus.GaugeValue, float64(st.rss)*c.pageSize)
			if c.startOK {
				add(c.startTime, prometheus.GaugeValue, c.startSeconds)
			}
		}
	}
	if n, err := c.openFDCount(); err == nil {
		add(c.openFDs, prometheus.GaugeValue, float64(n))
	}
	var nofile, as syscall.Rlimit
	if c.getrlimit(syscall.RLIMIT_NOFILE, &nofile) == nil && c.getrlimit(syscall.RLIMIT_AS, &as) == nil {
		add(c.maxFDs, prometheus.GaugeValue, float64(nofile.Cur))
		add(c.maxVsize, prometheus.GaugeValue, float64(as.Cur))
	}
	if b, err := readBounded(c.dir+"/net/netstat", buf); err == nil {
		in, out := parseNetstat(b)
		add(c.inBytes, prometheus.CounterValue, in)
		add(c.outBytes, prometheus.CounterValue, out)
	}
	for _, m := range ms {
		ch <- m
	}
}

// openFDCount is the number of entries of <dir>/fd: on procfs the
// directory's size where the kernel reports it (Linux 6.2 and later),
// else a listing.
func (c *collector) openFDCount() (int, error) {
	if c.fdSize {
		fi, err := os.Stat(c.dir + "/fd")
		if err != nil {
			return 0, err
		}
		if n := fi.Size(); n > 0 {
			return int(n), nil
		}
	}
	d, err := os.Open(c.dir + "/fd")
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	return len(names), err
}

// errTooLarge refuses a file longer than its bound.
var errTooLarge = errors.New("larger than its bound")

// readBounded reads the file at path whole into buf, which is one byte
// longer than the bound: a file that fills it is refused. It calls
// open(2) and read(2) itself: os.Open would also try to add each /proc
// file to the network poller, a wasted system call on every scrape.
func readBounded(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			return buf[:n], nil
		}
		n += m
	}
	return nil, fmt.Errorf("%s: %w", path, errTooLarge)
}

// procStat holds the fields of /proc/<pid>/stat this collector serves.
type procStat struct {
	utime, stime, vsize, rss uint64
}

// parseStat reads /proc/<pid>/stat. The command name, in parentheses, may
// itself hold spaces and parentheses, so the fields are counted from the
// last ')'. After it come field 3 (state) onwards; utime and stime are
// fields 14 and 15, vsize 23, rss 24 (proc(5)).
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("stat: no command name")
	}
	f := bytes.Fields(b[i+1:])
	const first = 3
	field := func(n int) (uint64, error) {
		if n-first >= len(f) {
			return 0, fmt.Errorf("stat: %d fields, want at least %d", len(f)+first-1, n)
		}
		v, err := strconv.ParseUint(string(f[n-first]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat: field %d: %w", n, err)
		}
		return v, nil
	}
	var st procStat
	var err error
	for _, x := range []struct {
		n int
		v *uint64
	}{{14, &st.utime}, {15, &st.stime}, {23, &st.vsize}, {24, &st.rss}} {
		if *x.v, err = field(x.n); err != nil {
			return procStat{}, err
		}
	}
	return st, nil
}

// parseNetstat returns IpExt's InOctets and OutOctets from
// /proc/<pid>/net/netstat: a header line of names and a line of values,
// both starting "IpExt:". A counter the kernel does not report is 0, as
// client_golang reports it.
func parseNetstat(b []byte) (in, out float64) {
	var names [][]byte
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		rest, ok := bytes.CutPrefix(line, []byte("IpExt:"))
		if !ok {
			continue
		}
		if names == nil {
			names = bytes.Fields(rest)
			continue
		}
		for i, v := range bytes.Fields(rest) {
			if i >= len(names) {
				break
			}
			x, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				continue
			}
			switch string(names[i]) {
			case "InOctets":
				in = x
			case "OutOctets":
				out = x
			}
		}
		break
	}
	return in, out
}
