package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// quickRefusal bounds how long refusing a special file may take: it comes
// from fstat, before any read, so it must not wait out the read timeout.
const quickRefusal = config.FileReadTimeout - time.Second

// startWithConfig runs the exporter's handler on the config text cfg (one
// %s: the API URL) written to a file; MAIN_TEST_KEY holds the key.
func startWithConfig(t *testing.T, apiURL, cfg string) (*httptest.Server, *server, string, *testkit.LockedBuffer) {
	t.Helper()
	return startServer(t, apiURL, cfg, Options{RetryBase: time.Millisecond})
}

const hostileConfig = `
global:
  api_url: %s
keys:
  - name: acme
    api_key_env: MAIN_TEST_KEY
projects:
  - id: proj-docs
    name: docs
    jobs: [job_1]
`

// A 302 to another port of the same host: the other port receives
// nothing (so never the key), and up goes to 0 with reason bad_response.
func TestRedirectToOtherPortNotFollowed(t *testing.T) {
	var other atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Add(1)
		w.WriteHeader(500)
	}))
	defer elsewhere.Close()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer front.Close()
	ts, _, _, logs := startWithConfig(t, front.URL, hostileConfig)
	code, body := get(t, ts.URL+"/metrics", nil)
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{
		`mintlify_up{collector="pageviews",project="docs"} 0`,
		`mintlify_up{collector="agent_jobs",project="docs"} 0`,
		`mintlify_refresh_failures_total{collector="pageviews",project="docs",reason="bad_response"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s", want)
		}
	}
	if n := other.Load(); n != 0 {
		t.Fatalf("the redirect target received %d requests", n)
	}
	if !strings.Contains(logs.String(), "redirect not followed") {
		t.Error("the log does not say why")
	}
	checkPromtool(t, body)
}

// An upstream (or proxy) that echoes the Authorization header in a 401
// body: the key is absent from the debug log and from /metrics.
func TestEchoedKeyAbsentFromDebugLog(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":"Invalid API key: Authorization: %s","details":[{"message":"%s"}]}`,
			r.Header.Get("Authorization"), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer echo.Close()
	ts, _, _, logs := startWithConfig(t, echo.URL, hostileConfig)
	_, body := get(t, ts.URL+"/metrics", nil)
	if !strings.Contains(body, `mintlify_up{collector="pageviews",project="docs"} 0`) {
		t.Error("up not 0 on a 401")
	}
	out := logs.String()
	if !strings.Contains(out, "401") || !strings.Contains(out, "Invalid API key") {
		t.Fatalf("the 401 is not logged:\n%s", out)
	}
	secretPart := strings.TrimPrefix(mainTestKey, "mint_")
	for _, s := range []string{out, body} {
		if strings.Contains(s, secretPart) {
			t.Fatalf("the key is in the output:\n%s", s)
		}
	}
}

func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// /dev/zero and a FIFO as api_key_file are refused at once, at start and on
// reload; a reload keeps the running configuration.
func TestSpecialKeyFilesRefused(t *testing.T) {
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	dir := t.TempDir()
	goodKey := filepath.Join(dir, "key")
	if err := os.WriteFile(goodKey, []byte(mainTestKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withKeyFile := func(path string) string {
		return "global:\n  api_url: %s\nkeys:\n  - name: acme\n    api_key_file: " + path + "\nprojects:\n  - id: proj-docs\n    name: docs\n"
	}
	for _, key := range []string{"/dev/zero", mkfifo(t)} {
		t.Run(filepath.Base(key), func(t *testing.T) {
			cfgPath := filepath.Join(t.TempDir(), "bad.yml")
			if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(withKeyFile(key), api.URL())), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"--config.file", cfgPath, "--config.check"},
				{"--config.file", cfgPath, "--web.listen-address=127.0.0.1:0"},
			} {
				var out, errb bytes.Buffer
				start := time.Now()
				rc := serve(context.Background(), args, &out, &errb, nil)
				if d := time.Since(start); d > quickRefusal {
					t.Fatalf("%q took %v", args, d)
				}
				if rc != 1 || !strings.Contains(errb.String(), "api_key_file "+key) || !strings.Contains(errb.String(), "not a regular file") {
					t.Fatalf("%q: rc %d, %s", args, rc, errb.String())
				}
			}

			ts, _, runningCfg, _ := startWithConfig(t, api.URL(), withKeyFile(goodKey))
			if _, body := get(t, ts.URL+"/metrics", nil); !strings.Contains(body, `mintlify_up{collector="pageviews",project="docs"} 1`) {
				t.Fatal("not up before the reload")
			}
			if err := os.WriteFile(runningCfg, []byte(fmt.Sprintf(withKeyFile(key), api.URL())), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			resp, err := http.Post(ts.URL+"/-/reload", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if d := time.Since(start); d > quickRefusal {
				t.Fatalf("reload took %v", d)
			}
			if resp.StatusCode != 500 || !strings.Contains(string(msg), "not a regular file") {
				t.Fatalf("reload: %d %s", resp.StatusCode, msg)
			}
			_, body := get(t, ts.URL+"/metrics", nil)
			if !strings.Contains(body, "mintlify_exporter_config_last_reload_successful 0") ||
				!strings.Contains(body, `mintlify_up{collector="pageviews",project="docs"} 1`) {
				t.Fatal("the refused reload changed the running state")
			}
		})
	}
}

// A config file that became a FIFO is refused at once on reload.
func TestConfigFileFIFORefusedOnReload(t *testing.T) {
	ts, _, _, cfgPath, _ := testServer(t, nil)
	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(cfgPath, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	start := time.Now()
	resp, err := http.Post(ts.URL+"/-/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if d := time.Since(start); d > quickRefusal || resp.StatusCode != 500 || !strings.Contains(string(msg), "a FIFO") {
		t.Fatalf("reload: %d %s after %v", resp.StatusCode, msg, d)
	}
}

// A reload whose reading does not end is refused when its deadline
// passes, and the running configuration serves on.
func TestReloadDeadline(t *testing.T) {
	ts, s, _, _, _ := testServer(t, nil)
	release := make(chan struct{})
	s.src.loadHook = func() (*config.Config, error) {
		<-release
		return nil, errors.New("released")
	}
	defer close(release)
	s.reloadTimeout = 200 * time.Millisecond
	start := time.Now()
	err := s.reload()
	if err == nil || !strings.Contains(err.Error(), "reload refused") {
		t.Fatalf("reload: %v", err)
	}
	// The bound is the subject: well under a hang, loose for a loaded machine.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("reload returned after %v with a 200ms deadline", d)
	}
	_, body := get(t, ts.URL+"/metrics", nil)
	if !strings.Contains(body, "mintlify_exporter_config_last_reload_successful 0") ||
		!strings.Contains(body, `mintlify_up{collector="pageviews",project="docs"} 1`) {
		t.Fatal("the refused reload changed the running state")
	}
}

// 10^6 tracked job ids: every scrape answers within its timeout, the cap
// holds, and the process shuts down within 5 s of SIGTERM.
func TestMillionTrackedJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 15 MB file")
	}
	api := testkit.StartAPI(t, mockapi.Options{
		Keys:     []mockapi.KeySpec{{Key: mainTestKey, Org: "acme"}},
		Projects: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 5}},
	})
	t.Setenv("MINTLIFY_API_KEY", mainTestKey)
	track := filepath.Join(t.TempDir(), "jobs.txt")
	var b bytes.Buffer
	for i := range 1_000_000 {
		fmt.Fprintf(&b, "job_%010d\n", i)
	}
	if err := os.WriteFile(track, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b = bytes.Buffer{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	logs := &testkit.LockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{
			"--mintlify.project-id=proj-docs", "--mintlify.api-url=" + api.URL(),
			"--mintlify.tracked-jobs-file=" + track, "--storage.path=" + filepath.Join(t.TempDir(), "state.json"),
		}, &out, logs, l)
	}()
	const scrapeTimeout = 2 * time.Second
	guard := testkit.HangGuard(t) // a hung scrape fails the test rather than hanging it
	client := &http.Client{}
	scrape := func() (string, error) {
		req, _ := http.NewRequestWithContext(guard, http.MethodGet, "http://"+addr+"/metrics", nil)
		req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", "2")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		// Prometheus gives up at its timeout; allow generous slack for
		// a loaded machine, far below the minutes the O(n²) code took.
		if d := time.Since(start); resp.StatusCode != 200 || d > scrapeTimeout+30*time.Second {
			return "", fmt.Errorf("scrape: %d after %v", resp.StatusCode, d)
		}
		return string(body), nil
	}
	var body string
	for {
		body, err = scrape()
		if err == nil && strings.Contains(body, `mintlify_agent_jobs_tracked{project="proj-docs"}`) &&
			!strings.Contains(body, `mintlify_agent_jobs_tracked{project="proj-docs"} 0`) {
			break
		}
		var ne net.Error
		if err != nil && !errors.As(err, &ne) && !strings.Contains(err.Error(), "connection refused") {
			t.Fatal(err)
		}
		if err != nil && errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("scrape hung: %v", err)
		}
		select {
		case <-guard.Done():
			t.Fatalf("the tracked ids were never counted (last error %v)\n%s", err, logs.String())
		case <-time.After(100 * time.Millisecond): // poll interval; no verdict depends on it
		}
	}
	for range 3 {
		if _, err := scrape(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use with 10^6 tracked ids (whole test process): %d MiB", ms.HeapInuse>>20)

	start := time.Now()
	cancel() // what SIGTERM does
	select {
	case rc := <-done:
		if rc != 0 {
			t.Fatalf("exit %d", rc)
		}
		t.Logf("shutdown took %v", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("still running 5 s after SIGTERM")
	}
	client.CloseIdleConnections()
	if !strings.Contains(body, `mintlify_agent_jobs_tracked{project="proj-docs"} 10000`) ||
		!strings.Contains(body, `mintlify_agent_jobs_ignored{project="proj-docs"} 990000`) {
		t.Errorf("cap not applied:\n%s", grepLines(body, "mintlify_agent_jobs_"))
	}
	if n := strings.Count(logs.String(), "too many tracked agent job ids"); n != 1 {
		t.Errorf("the cap was logged %d times, want once", n)
	}
}
