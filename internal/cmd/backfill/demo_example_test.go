package backfill

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve/servetest"
	"github.com/mintlify-exporter/mintlify_exporter/internal/testkit"
	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// docCommands returns the commands of the first sh block under heading
// in docs/FILE, continuation lines joined, comments and blank lines left
// out.
func docCommands(t *testing.T, file, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/%s has no %q", file, heading)
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatalf("docs/%s, %s: no sh block", file, heading)
	}
	if block, _, ok = strings.Cut(block, "\n```"); !ok {
		t.Fatalf("docs/%s, %s: no sh block", file, heading)
	}
	var cmds []string
	cur := ""
	for _, line := range strings.Split(block, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cur += line
		if strings.HasSuffix(cur, `\`) {
			cur = strings.TrimSuffix(cur, `\`)
			continue
		}
		cmds = append(cmds, cur)
		cur = ""
	}
	return cmds
}

// TestBackfillDemoExample runs the demo example of docs/backfill.md as
// written, against a running --demo exporter that has made its first
// refreshes (as a fresh `make demo` has by the time one types the
// backfill): only the address (the test's port for localhost:10491) and
// --from (a few days ago, which the text asks for) are changed. The
// backfill never waits (the demo's simulated organization leaves its
// budget room: no 429), the series it writes are the ones the demo
// exports (project="docs"), and the documented promtool command makes
// fewer blocks than days.
func TestBackfillDemoExample(t *testing.T) {
	cmds := docCommands(t, "backfill.md", "## Try it against the demo")
	if len(cmds) != 4 || cmds[0] != "mintlify_exporter --demo" || !strings.HasPrefix(cmds[1], "export ") ||
		!strings.HasPrefix(cmds[2], "mintlify_exporter backfill ") || !strings.HasPrefix(cmds[3], "promtool ") {
		t.Fatalf("the demo example is not: start the demo, export the key, backfill, promtool:\n%s", strings.Join(cmds, "\n"))
	}
	ts := servetest.Start(t, []string{"--demo"}, serve.Options{})
	servetest.ScrapeSettled(t, ts, nil) // the demo's first refreshes spend its share of the hour
	for _, kv := range strings.Fields(strings.TrimPrefix(cmds[1], "export ")) {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	t.Setenv("MINTLIFY_PROJECT_ID", "")
	t.Chdir(t.TempDir())

	const days = 4
	from := time.Now().UTC().AddDate(0, 0, -days).Format("2006-01-02")
	args := strings.Fields(strings.ReplaceAll(cmds[2], "http://localhost:10491", ts.URL))[2:]
	for i, a := range args {
		if a == "--from" && i+1 < len(args) && regexp.MustCompile(`^\d{4}-\d\d-\d\d$`).MatchString(args[i+1]) {
			args[i+1] = from
		}
	}
	if !strings.Contains(strings.Join(args, " "), "--from "+from) {
		t.Fatalf("the example has no --from YYYY-MM-DD: %s", cmds[2])
	}
	// The backfill sleeps only to wait for a budget: after a 429, or for
	// its own hour. Either is a failure of the example here.
	sleep := cli.SleepContext
	t.Cleanup(func() { cli.SleepContext = sleep })
	cli.SleepContext = func(ctx context.Context, d time.Duration) error {
		t.Errorf("the backfill waited %s (a 429 from the demo's organization, or its budget spent)", d)
		return context.Canceled
	}
	var stdout, stderr bytes.Buffer
	if code := Run(args, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("%s: exit %d: %s", cmds[2], code, stderr.String())
	}
	out := args[len(args)-1]
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	series := `mintlify_site_page_views_total{project="docs",traffic="human"}`
	if !strings.Contains(string(b), series+" ") || strings.Contains(string(b), "demo-docs") {
		t.Errorf("%s does not hold the demo's series %s (or names demo-docs):\n%s", out, series, tail(string(b)))
	}
	if !strings.Contains(string(b), `mintlify_assistant_conversations_total{project="docs",`) {
		t.Errorf("%s does not hold the conversations' counters of --collector.conversations:\n%s", out, tail(string(b)))
	}
	if body := servetest.ScrapeSettled(t, ts, nil); !strings.Contains(body, "\n"+series+" ") {
		t.Errorf("the demo does not export %s, which the backfill wrote", series)
	}

	promtool, ok := toolcheck.Find(t, "promtool", "apt-get install prometheus", "the promtool command of the demo example in docs/backfill.md")
	if !ok {
		return
	}
	pargs := strings.Fields(cmds[3])[1:]
	res, err := exec.Command(promtool, pargs...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmds[3], err, res)
	}
	blocks, err := os.ReadDir(pargs[len(pargs)-1])
	if err != nil || len(blocks) == 0 || len(blocks) >= days {
		t.Errorf("%s made %d blocks of %d days (%v), want fewer than the days:\n%s", cmds[3], len(blocks), days, err, res)
	}
}
