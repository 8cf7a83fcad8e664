//go:build linux

package processcollector

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

func descStrings(c prometheus.Collector) []string {
	ch := make(chan *prometheus.Desc, 32)
	c.Describe(ch)
	close(ch)
	var out []string
	for d := range ch {
		out = append(out, d.String())
	}
	slices.Sort(out)
	return out
}

// The families are client_golang's: same names, help, no labels.
func TestDescriptionsAreClientGolangs(t *testing.T) {
	ours, theirs := descStrings(New()), descStrings(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if len(ours) != 9 || !slices.Equal(ours, theirs) {
		t.Fatalf("descriptions differ:\nours:   %q\ntheirs: %q", ours, theirs)
	}
}

type sample struct {
	typ   dto.MetricType
	help  string
	value float64
}

func gather(t *testing.T, c prometheus.Collector) map[string]sample {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]sample{}
	for _, mf := range mfs {
		if len(mf.Metric) != 1 {
			t.Fatalf("%s: %d series", mf.GetName(), len(mf.Metric))
		}
		m := mf.Metric[0]
		v := m.GetGauge().GetValue()
		if mf.GetType() == dto.MetricType_COUNTER {
			v = m.GetCounter().GetValue()
		}
		out[mf.GetName()] = sample{mf.GetType(), mf.GetHelp(), v}
	}
	return out
}

// The values are this process's, as client_golang reads them: read
// between two of its reads, a counter lies between its two values and
// what does not change here is equal.
func TestAgreesWithClientGolang(t *testing.T) {
	theirs := collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})
	ours := New()
	if _, lean := ours.(*collector); !lean {
		t.Fatal("New fell back to client_golang's collector on Linux")
	}
	before := gather(t, theirs)
	got := gather(t, ours)
	after := gather(t, theirs)
	if len(before) != 9 || len(got) != len(before) {
		t.Fatalf("client_golang gave %d families, we gave %d: %v", len(before), len(got), got)
	}
	for name, b := range before {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		if g.typ != b.typ || g.help != b.help {
			t.Errorf("%s: type %v help %q, want %v %q", name, g.typ, g.help, b.typ, b.help)
		}
		a := after[name]
		lo, hi := min(b.value, a.value), max(b.value, a.value)
		switch name {
		case "process_cpu_seconds_total", "process_network_receive_bytes_total",
			"process_network_transmit_bytes_total", "process_open_fds",
			"process_start_time_seconds", "process_max_fds", "process_virtual_memory_max_bytes":
			// Counters only grow; the rest do not change in this test.
			if g.value < lo || g.value > hi {
				t.Errorf("%s = %v, want within [%v, %v]", name, g.value, lo, hi)
			}
		case "process_virtual_memory_bytes", "process_resident_memory_bytes":
			// The heap may grow between the reads, not by half.
			if g.value < lo/2 || g.value > hi*2 || g.value <= 0 {
				t.Errorf("%s = %v, want near [%v, %v]", name, g.value, lo, hi)
			}
		default:
			t.Errorf("unexpected family %s", name)
		}
	}
}

// fakeProc writes a /proc/<pid> look-alike: stat, net/netstat and an fd
// directory of n entries.
func fakeProc(t *testing.T, stat, netstat string, fds int) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "net"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "fd"), 0o755))
	if stat != "" {
		must(os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644))
	}
	if netstat != "" {
		must(os.WriteFile(filepath.Join(dir, "net", "netstat"), []byte(netstat), 0o644))
	}
	for i := range fds {
		must(os.WriteFile(filepath.Join(dir, "fd", strconv.Itoa(i)), nil, 0o644))
	}
	return dir
}

// statLine is a /proc/<pid>/stat line whose command name holds spaces and
// parentheses, with utime 250, stime 150, vsize 123456789 and rss 1000.
const statLine = "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 1 0 0 0 250 150 0 0 20 0 9 0 777 123456789 1000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

const netstatText = `TcpExt: SyncookiesSent SyncookiesRecv
TcpExt: 0 0
IpExt: InNoRoutes InTruncatedPkts InOctets OutOctets InNoECTPkts
IpExt: 0 0 111 222 5
MPTcpExt: MPCapableSYNRX
MPTcpExt: 0
`

func fakeCollector(dir string) *collector {
	c := newCollector(dir)
	c.startSeconds, c.startOK = 1.7e9, true
	c.getrlimit = func(resource int, r *syscall.Rlimit) error {
		switch resource {
		case syscall.RLIMIT_NOFILE:
			r.Cur, r.Max = 1024, 4096
		case syscall.RLIMIT_AS:
			r.Cur, r.Max = ^uint64(0), ^uint64(0)
		}
		return nil
	}
	return c
}

// Every figure is read from its file and field, and rendered as
// client_golang renders it.
func TestReadsEachFigureFromItsField(t *testing.T) {
	c := fakeCollector(fakeProc(t, statLine, netstatText, 7))
	rss := strconv.FormatFloat(float64(1000*os.Getpagesize()), 'e', -1, 64)
	want := `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 4
# HELP process_max_fds Maximum number of open file descriptors.
# TYPE process_max_fds gauge
process_max_fds 1024
# HELP process_network_receive_bytes_total Number of bytes received by the process over the network.
# TYPE process_network_receive_bytes_total counter
process_network_receive_bytes_total 111
# HELP process_network_transmit_bytes_total Number of bytes sent by the process over the network.
# TYPE process_network_transmit_bytes_total counter
process_network_transmit_bytes_total 222
# HELP process_open_fds Number of open file descriptors.
# TYPE process_open_fds gauge
process_open_fds 7
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes ` + rss + `
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.7e+09
# HELP process_virtual_memory_bytes Virtual memory size in bytes.
# TYPE process_virtual_memory_bytes gauge
process_virtual_memory_bytes 1.23456789e+08
# HELP process_virtual_memory_max_bytes Maximum amount of virtual memory available in bytes.
# TYPE process_virtual_memory_max_bytes gauge
process_virtual_memory_max_bytes 1.8446744073709552e+19
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

func collectedNames(t *testing.T, c prometheus.Collector) []string {
	t.Helper()
	var names []string
	for name := range gather(t, c) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// A file that cannot be read or parsed leaves out its series and no
// other; nothing panics.
func TestBadFileLeavesOutItsSeries(t *testing.T) {
	rest := []string{"process_max_fds", "process_open_fds", "process_virtual_memory_max_bytes"}
	net := []string{"process_network_receive_bytes_total", "process_network_transmit_bytes_total"}
	stat := []string{"process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds", "process_virtual_memory_bytes"}
	all := func(groups ...[]string) []string {
		out := slices.Concat(groups...)
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name, stat, netstat string
		want                []string
	}{
		{"no stat file", "", netstatText, all(rest, net)},
		{"no command name", "4242 a S 1 2 3\n", netstatText, all(rest, net)},
		{"too few fields", "4242 (a) S 1 4242 4242 0 -1 4194560 1 0 0 0 250\n", netstatText, all(rest, net)},
		{"not a number", strings.Replace(statLine, " 250 ", " x ", 1), netstatText, all(rest, net)},
		{"stat over its bound", statLine + strings.Repeat(" 0", maxStatBytes), netstatText, all(rest, net)},
		{"no netstat file", statLine, "", all(rest, stat)},
		{"netstat over its bound", statLine, strings.Repeat("TcpExt: 0\n", maxNetstatBytes/10+1), all(rest, stat)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := collectedNames(t, fakeCollector(fakeProc(t, tc.stat, tc.netstat, 1)))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("limits unreadable", func(t *testing.T) {
		c := fakeCollector(fakeProc(t, statLine, netstatText, 1))
		c.getrlimit = func(int, *syscall.Rlimit) error { return syscall.EPERM }
		want := all(net, stat, []string{"process_open_fds"})
		if got := collectedNames(t, c); !slices.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

// A netstat without IpExt, or without its octets, counts 0, as
// client_golang counts it.
func TestNetstatWithoutOctetsCountsZero(t *testing.T) {
	for _, text := range []string{
		"",
		"TcpExt: A B\nTcpExt: 1 2\n",
		"IpExt: InOctets OutOctets\n", // no line of values
		"IpExt: InNoRoutes InMcastPkts\nIpExt: 3 4\n", // neither octets field
		"IpExt: InOctets OutOctets\nIpExt: 5\n",       // fewer values than names
		"IpExt: InOctets OutOctets\nIpExt: x -\n",     // not numbers
	} {
		in, out := parseNetstat([]byte(text))
		if text == "IpExt: InOctets OutOctets\nIpExt: 5\n" {
			if in != 5 || out != 0 {
				t.Errorf("%q: %v %v, want 5 0", text, in, out)
			}
			continue
		}
		if in != 0 || out != 0 {
			t.Errorf("%q: %v %v, want 0 0", text, in, out)
		}
	}
}

// A file exactly at its bound is read; one byte more is refused.
func TestReadBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readBounded(p, make([]byte, 101)); err != nil || len(b) != 100 {
		t.Fatalf("at the bound: %d bytes, %v", len(b), err)
	}
	if _, err := readBounded(p, make([]byte, 100)); !errors.Is(err, errTooLarge) {
		t.Fatalf("over the bound: %v, want errTooLarge", err)
	}
	if _, err := readBounded(filepath.Join(dir, "missing"), make([]byte, 10)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// The open descriptors are counted by listing when the directory is not
// on procfs, and by the fd directory's size on procfs where it has one.
func TestOpenFDCount(t *testing.T) {
	c := fakeCollector(fakeProc(t, statLine, netstatText, 3))
	if n, err := c.openFDCount(); err != nil || n != 3 {
		t.Fatalf("listing: %d, %v; want 3", n, err)
	}
	self, ok := New().(*collector)
	if !ok || !self.fdSize {
		t.Fatal("New did not see /proc as procfs")
	}
	n, err := self.openFDCount()
	if err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadDir(self.dir + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	// ReadDir holds one more descriptor open while it lists.
	if n != len(names) && n != len(names)-1 {
		t.Fatalf("counted %d, listing shows %d", n, len(names))
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte(statLine))
	f.Add([]byte("1 () 2"))
	f.Add([]byte(")))"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseStat(b)
		if err == nil && strings.Count(string(b), ")") == 0 {
			t.Fatalf("accepted %q without a command name: %+v", b, st)
		}
		parseNetstat(b) // must not panic
	})
}

// Without a readable /proc/<pid>, New falls back to client_golang's
// collector; with one that is not procfs, the lean one lists fd.
func TestNewFallsBack(t *testing.T) {
	if _, lean := newFor(t.TempDir(), 4242).(*collector); lean {
		t.Fatal("no stat file, yet the lean collector was chosen")
	}
	root := t.TempDir()
	dir := fakeProc(t, statLine, netstatText, 2)
	if err := os.Rename(dir, filepath.Join(root, "4242")); err != nil {
		t.Fatal(err)
	}
	c, lean := newFor(root, 4242).(*collector)
	if !lean || c.fdSize {
		t.Fatalf("lean %v, fd size trusted %v off procfs", lean, lean && c.fdSize)
	}
	if c.startOK {
		t.Fatal("a start time was made up without /proc/stat")
	}
	if n, err := c.openFDCount(); err != nil || n != 2 {
		t.Fatalf("open fds %d, %v; want 2", n, err)
	}
}
