package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// benchConfig is one project of n paths with the default collectors and
// windows (page views as month-to-date counters), every path exported,
// and a budget that lets one refresh read them all.
const benchConfig = `
global:
  api_url: %s
keys:
  - name: acme
    api_key_env: MAIN_TEST_KEY
    budget_per_hour: 10000
    reserve: 0
projects:
  - id: proj-docs
    name: docs
    max_paths: 0
`

// benchServer is the exporter's HTTP handler with a warm cache of n paths.
func benchServer(b *testing.B, n int, extraFlags ...string) (*server, http.Handler) {
	b.Helper()
	b.Setenv("MAIN_TEST_KEY", mainTestKey)
	clock := manualclock.New(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	api := testkit.StartAPI(b, mockapi.Options{
		Clock: clock, Keys: []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects:               map[string]mockapi.Site{"proj-docs": {Seed: 11, Paths: n}},
		AnalyticsBudgetPerHour: -1,
	})
	cfgPath := filepath.Join(b.TempDir(), "mintlify.yml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(benchConfig, api.URL())), 0o644); err != nil {
		b.Fatal(err)
	}
	var f flags
	if _, err := newApp(&f).Parse(append([]string{"--config.file", cfgPath, "--storage.path="}, extraFlags...)); err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	src, err := newConfigSource(context.Background(), &f, logger, nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := src.load()
	if err != nil {
		b.Fatal(err)
	}
	s, err := newServer(&f, cfg, src, logger, Options{Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.close(); src.close() })
	s.exporter.Refresh(context.Background())
	s.exporter.Wait()
	return s, s.handler()
}

// scrapeInto serves one scrape of h into a recorder and returns the body.
func scrapeInto(b *testing.B, h http.Handler, gz bool) []byte {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "10")
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("scrape answered %d", rec.Code)
	}
	return rec.Body.Bytes()
}

// httpScrape is one GET /metrics over a real connection, the body read
// to the end as Prometheus reads it.
func httpScrape(b *testing.B, c *http.Client, url string, gz bool) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "10")
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if n < 1000 {
		b.Fatalf("a %d-byte answer is no exposition", n)
	}
	if resp.StatusCode != 200 {
		b.Fatalf("scrape answered %d", resp.StatusCode)
	}
}

// floorHandler serves the given bytes from memory: the least any exporter
// of the same exposition could do (for gzip, bytes compressed in advance).
func floorHandler(plain []byte) http.Handler {
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	_, _ = zw.Write(plain)
	_ = zw.Close()
	compressed := zb.Bytes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(compressed)
			return
		}
		_, _ = w.Write(plain)
	})
}

// benchHTTP alternates scrapes of h and of the floor over HTTP, plain and
// gzip, in one loop, and reports the ratios.
func benchHTTP(b *testing.B, h http.Handler, plain []byte) {
	srv, floor := httptest.NewServer(h), httptest.NewServer(floorHandler(plain))
	defer srv.Close()
	defer floor.Close()
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer c.CloseIdleConnections()
	var tPlain, tGz, tFloor, tFloorGz time.Duration
	timed := func(d *time.Duration, url string, gz bool) {
		start := time.Now()
		httpScrape(b, c, url, gz)
		*d += time.Since(start)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		timed(&tPlain, srv.URL+"/metrics", false)
		timed(&tFloor, floor.URL, false)
		timed(&tGz, srv.URL+"/metrics", true)
		timed(&tFloorGz, floor.URL, true)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tPlain.Nanoseconds())/n, "plain_ns/scrape")
	b.ReportMetric(float64(tGz.Nanoseconds())/n, "gzip_ns/scrape")
	b.ReportMetric(float64(tFloor.Nanoseconds())/n, "floor_ns/scrape")
	b.ReportMetric(float64(tFloorGz.Nanoseconds())/n, "floor_gzip_ns/scrape")
	b.ReportMetric(float64(tPlain)/float64(tFloor), "x_floor")
	b.ReportMetric(float64(tGz)/float64(tFloorGz), "x_floor_gzip")
	b.ReportMetric(float64(len(plain))/(1<<20), "exposition_MiB")
}

// BenchmarkHTTPScrape measures what Prometheus sees: a whole /metrics
// request over HTTP through the exporter's handler, plain and with gzip,
// against the true floor — the same bytes served from memory by net/http
// (for gzip, compressed in advance) — alternating the two in one loop.
// Targets at 10 000 and 100 000 paths: x_floor ≤ 2, x_floor_gzip ≤ 3.
// The self=off runs leave out the exporter's own Go, process and promhttp
// metrics (--web.disable-exporter-metrics): gathering them is a fixed
// cost of about 0.2 ms a scrape, whatever the size of the site.
func BenchmarkHTTPScrape(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		for _, self := range []bool{true, false} {
			name := fmt.Sprintf("paths=%d/self=on", n)
			var flags []string
			if !self {
				name, flags = fmt.Sprintf("paths=%d/self=off", n), []string{"--web.disable-exporter-metrics"}
			}
			b.Run(name, func(b *testing.B) {
				_, h := benchServer(b, n, flags...)
				benchHTTP(b, h, bytes.Clone(scrapeInto(b, h, false)))
			})
		}
	}
}

// BenchmarkHTTPScrapePromhttp is the same measure of the handler this one
// replaced: client_golang gathering and encoding every series on every
// scrape (and compressing on the fly), over the same collectors. It runs
// on its own, so its garbage does not slow the other's loop.
func BenchmarkHTTPScrapePromhttp(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			s, h := benchServer(b, n)
			old := promhttp.HandlerFor(prometheus.Gatherers{s.registry, s.data}, promhttp.HandlerOpts{})
			benchHTTP(b, old, bytes.Clone(scrapeInto(b, h, false)))
		})
	}
}

// BenchmarkScrapeAllocs reports the allocations of one plain scrape
// through the handler at 1 000 and 100 000 paths: they must not grow with
// the number of paths (the data series are written from stored bytes).
func BenchmarkScrapeAllocs(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			_, h := benchServer(b, n)
			scrapeInto(b, h, false)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				scrapeInto(b, h, true)
			}
		})
	}
}

// BenchmarkProcessRSS runs the built exporter against the simulated API
// (in this process) with 100 000 paths, scrapes it 100 times as Prometheus
// does (gzip), and reports the exporter process's resident memory against
// the size of its plain exposition (target: at most 2.5); then once more
// after one plain scrape and 100 gzip ones, when the exporter also holds
// the plain text.
func BenchmarkProcessRSS(b *testing.B) {
	bin := buildBinary(b)
	api := testkit.StartAPI(b, mockapi.Options{
		Keys:                   []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects:               map[string]mockapi.Site{"proj-docs": {Seed: 11, Paths: 100000}},
		AnalyticsBudgetPerHour: -1,
	})
	cfgPath := filepath.Join(b.TempDir(), "mintlify.yml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(benchConfig, api.URL())), 0o644); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		cmd := exec.Command(bin, "--config.file="+cfgPath, "--web.listen-address=127.0.0.1:0", "--storage.path=")
		cmd.Env = append(os.Environ(), "MAIN_TEST_KEY="+mainTestKey)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		addr := listenAddress(b, stderr)
		client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
		get := func(gz bool) []byte {
			req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
			req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "600")
			if gz {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return body
		}
		zipped := get(true) // waits for the first refresh (600 s at most)
		plain := gunzip(b, zipped)
		if !bytes.Contains(plain, []byte("mintlify_page_views_total{")) {
			b.Fatal("no page series after the first refresh")
		}
		for range 100 {
			get(true)
		}
		rss := processRSS(b, cmd.Process.Pid, "VmRSS:")
		b.ReportMetric(float64(rss)/(1<<20), "rss_MiB")
		b.ReportMetric(float64(processRSS(b, cmd.Process.Pid, "RssAnon:"))/(1<<20), "rss_anon_MiB")
		b.ReportMetric(float64(processRSS(b, cmd.Process.Pid, "RssFile:"))/(1<<20), "rss_file_MiB")
		b.ReportMetric(float64(len(plain))/(1<<20), "exposition_MiB")
		b.ReportMetric(float64(rss)/float64(len(plain)), "x_exposition")
		// A client that does not take gzip (curl) makes the exporter keep
		// the plain text beside the gzip members until the data changes.
		if got := get(false); len(got) < len(plain)*99/100 || !bytes.Contains(got, []byte("mintlify_page_views_total{")) {
			b.Fatalf("the plain scrape (%d bytes) is not the gzip one's text (%d)", len(got), len(plain))
		}
		for range 100 {
			get(true)
		}
		rss = processRSS(b, cmd.Process.Pid, "VmRSS:")
		b.ReportMetric(float64(rss)/(1<<20), "rss_after_plain_MiB")
		b.ReportMetric(float64(rss)/float64(len(plain)), "x_exposition_after_plain")
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		client.CloseIdleConnections()
	}
}

// gunzip is the content of a gzip stream (of one or more members).
func gunzip(b *testing.B, z []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		b.Fatal(err)
	}
	p, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// listenAddress reads the bound address from the exporter's log, and
// drains the rest of it in the background.
func listenAddress(tb testing.TB, stderr io.Reader) string {
	tb.Helper()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "address=127.0.0.1:"); i >= 0 && strings.Contains(line, "Listening on") {
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			return strings.Fields(line[i+len("address="):])[0]
		}
	}
	tb.Fatal("the exporter exited before listening")
	return ""
}

// processRSS is a field of /proc/pid/status (VmRSS:, RssAnon:, …), in bytes.
func processRSS(b *testing.B, pid int, field string) int64 {
	f, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(f), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no " + field)
	return 0
}
