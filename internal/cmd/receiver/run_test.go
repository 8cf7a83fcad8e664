package receiver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
)

// TestRunServes: the command as main runs it, on a listener, behind
// exporter-toolkit's web config (basic auth); it stops on its context
// with status 0.
func TestRunServes(t *testing.T) {
	h := newHarness(t, false, testRoutes)
	h.stop()
	hash, err := bcrypt.GenerateFromPassword([]byte("am-pass"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webCfg := filepath.Join(h.dir, "web.yml")
	write(t, webCfg, "basic_auth_users:\n  alertmanager: "+string(hash)+"\n")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	// Alertmanager sends one Authorization header: basic auth or the
	// bearer token, not both. Here: basic auth only.
	var args []string
	for i := 0; i < len(h.args); i++ {
		if h.args[i] == "--receiver.bearer-token-file" {
			i++
			continue
		}
		args = append(args, h.args[i])
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(ctx, append(args, "--web.config.file", webCfg), &bytes.Buffer{}, &stderr, l, Options{Now: h.clock.Now})
	}()
	post := func(user string) int {
		req, _ := http.NewRequest(http.MethodPost, url+WebhookPath, bytes.NewReader(gap("billing").body()))
		if user != "" {
			req.SetBasicAuth(user, "am-pass")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(""); got != http.StatusUnauthorized {
		t.Errorf("no credentials: %d, want 401", got)
	}
	if got := post("someone"); got != http.StatusUnauthorized {
		t.Errorf("unknown user: %d, want 401", got)
	}
	if got := post("alertmanager"); got != http.StatusOK {
		t.Errorf("basic auth: %d, want 200", got)
	}
	req, _ := http.NewRequest(http.MethodGet, url+"/metrics", nil)
	req.SetBasicAuth("alertmanager", "am-pass")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "DRY RUN") {
		t.Errorf("the dry run is not logged:\n%s", stderr.String())
	}
}

// TestConfigCheck: --config.check reports a valid file with status 0 and
// a broken one with 1; a missing --config.file is a usage error.
func TestConfigCheck(t *testing.T) {
	h := newHarness(t, false, testRoutes)
	var out, errb bytes.Buffer
	if code := run(context.Background(), append(h.args, "--config.check"), &out, &errb, nil, Options{}); code != 0 || !strings.Contains(out.String(), "is valid: 2 routes") {
		t.Errorf("valid: exit %d, %q %q", code, out.String(), errb.String())
	}
	write(t, filepath.Join(h.dir, "gap.tmpl"), "{{.Annotations.summary}}")
	errb.Reset()
	if code := run(context.Background(), append(h.args, "--config.check"), &out, &errb, nil, Options{}); code != 1 || !strings.Contains(errb.String(), "Annotations") {
		t.Errorf("broken template: exit %d, %q", code, errb.String())
	}
	errb.Reset()
	if code := run(context.Background(), []string{"--receiver.act"}, &out, &errb, nil, Options{}); code != 2 || !strings.Contains(errb.String(), "--config.file") {
		t.Errorf("no routes file: exit %d, %q", code, errb.String())
	}
}

// TestMetricsDocumented: docs/loop.md lists every series the receiver
// exposes, and no other (the dashboard's test reads that list).
func TestMetricsDocumented(t *testing.T) {
	h := newHarness(t, true, testRoutes)
	h.post(gap("billing").body()) // every family present
	exposed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(mintlify_receiver_[a-z_]+)[{ ]`).FindAllStringSubmatch(h.scrape(), -1) {
		exposed[m[1]] = true
	}
	doc, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "docs", "loop.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(mintlify_receiver_[a-z_]+)").FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	if len(exposed) < 7 {
		t.Fatalf("only %d receiver series exposed: %v", len(exposed), exposed)
	}
	for n := range exposed {
		if !documented[n] {
			t.Errorf("%s is exposed but not in docs/loop.md's table", n)
		}
	}
	for n := range documented {
		if !exposed[n] {
			t.Errorf("docs/loop.md lists %s, which the receiver does not expose", n)
		}
	}
}

// TestActRefusedWithoutAuth: acting (--receiver.act or act: true) without
// the bearer token and without basic auth in the web config is refused at
// start, naming the flags, unless --receiver.trust-network says that only
// Alertmanager can reach the port; a dry run still starts.
func TestActRefusedWithoutAuth(t *testing.T) {
	h := newHarness(t, false, testRoutes)
	h.stop()
	var noToken []string
	for i := 0; i < len(h.args); i++ {
		if h.args[i] == "--receiver.bearer-token-file" {
			i++
			continue
		}
		noToken = append(noToken, h.args[i])
	}
	hash, err := bcrypt.GenerateFromPassword([]byte("am-pass"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	basic := filepath.Join(h.dir, "web-basic.yml")
	write(t, basic, "basic_auth_users:\n  alertmanager: "+string(hash)+"\n")
	noUsers := filepath.Join(h.dir, "web-plain.yml")
	write(t, noUsers, "http_server_config:\n  http2: false\n")
	actRoutes := filepath.Join(h.dir, "act-routes.yml")
	write(t, actRoutes, "act: true\n"+testRoutes)
	actFile := slices.Clone(noToken)
	actFile[slices.Index(actFile, "--config.file")+1] = actRoutes
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"act, no auth", slices.Concat(noToken, []string{"--receiver.act"}), 1},
		{"act: true in the routes file, no auth", actFile, 1},
		{"act, a web config without basic auth", slices.Concat(noToken, []string{"--receiver.act", "--web.config.file", noUsers}), 1},
		{"act, basic auth", slices.Concat(noToken, []string{"--receiver.act", "--web.config.file", basic}), 0},
		{"act, the bearer token", slices.Concat(h.args, []string{"--receiver.act"}), 0},
		{"act, a trusted network", slices.Concat(noToken, []string{"--receiver.act", "--receiver.trust-network"}), 0},
		{"dry run, no auth", noToken, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // started, then stopped at once
			var stderr bytes.Buffer
			getenv := func(string) string { return testKey }
			code := run(ctx, tc.args, io.Discard, &stderr, l, Options{Now: h.clock.Now, Getenv: getenv})
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, stderr.String())
			}
			if tc.code != 0 {
				mustContain(t, stderr.String(), "--receiver.act", "--receiver.bearer-token-file", "--web.config.file", "--receiver.trust-network")
			}
		})
	}
}

// TestReceiverFlagsChecked: the receiver refuses the --mintlify.* values
// the exporter refuses, in the same words, never showing a password in
// the URL, and a tracked-jobs file it could not append to.
func TestReceiverFlagsChecked(t *testing.T) {
	h := newHarness(t, false, testRoutes)
	h.stop()
	missing := filepath.Join(h.dir, "missing", "jobs.txt")
	for _, tc := range []struct {
		arg  string
		code int
		want string
	}{
		{"--mintlify.request-timeout=0s", 2, "--mintlify.request-timeout must be at least 1s and at most 1h0m0s, got 0s"},
		{"--mintlify.request-timeout=1ns", 2, "--mintlify.request-timeout must be at least 1s and at most 1h0m0s, got 1ns"},
		{"--mintlify.api-url=http://127.0.0.1:99999", 2, `--mintlify.api-url must have a port from 1 to 65535, got "http://127.0.0.1:99999"`},
		{"--mintlify.api-url=http://am:secretpw@127.0.0.1:1", 2, `--mintlify.api-url must not contain a query, fragment or user info, got "http://xxxxx@127.0.0.1:1"`},
		{"--receiver.tracked-jobs-file=/dev/null", 1, "--receiver.tracked-jobs-file /dev/null: not a regular file"},
		{"--receiver.tracked-jobs-file=" + missing, 1, "--receiver.tracked-jobs-file " + missing + ": its directory " + filepath.Dir(missing) + " does not exist"},
	} {
		var stderr bytes.Buffer
		args := slices.Clone(h.args)
		name, value, _ := strings.Cut(tc.arg, "=")
		if i := slices.Index(args, name); i >= 0 {
			args[i+1] = value
		} else {
			args = append(args, tc.arg)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // a start that is not refused stops at once
		code := run(ctx, args, io.Discard, &stderr, l, Options{Now: h.clock.Now})
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", tc.arg, code, stderr.String(), tc.code, tc.want)
		}
		if strings.Contains(stderr.String(), "secretpw") {
			t.Errorf("%s: the password is shown: %s", tc.arg, stderr.String())
		}
	}
}
