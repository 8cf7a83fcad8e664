package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// repoBlobURL is how the alert rules and the dashboard link to files of
// this repository; such links are checked like relative ones.
const repoBlobURL = "https://github.com/mintlify-exporter/mintlify_exporter/blob/main/"

// docFiles are the Markdown files whose links TestDocLinks checks.
func docFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.md", "docs/*.md", "dashboards/*.md", "deploy/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if !slices.Contains(files, "README.md") || !slices.Contains(files, filepath.Join("docs", "configuration.md")) {
		t.Fatalf("doc files %v: README.md or docs/ missing", files)
	}
	return files
}

var (
	// inlineLink matches [text](target) and ![alt](target); the target
	// may be followed by a title.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refDefinition matches a reference-style link definition.
	refDefinition = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	codeSpan      = regexp.MustCompile("`+[^`]*`+")
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor    = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// markdownProse returns the lines of a Markdown file outside fenced code
// blocks, with inline code spans blanked out.
func markdownProse(s string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			out = append(out, "")
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			out = append(out, "")
			continue
		}
		out = append(out, line)
	}
	return out
}

// githubSlug is the anchor GitHub gives a heading: its text in lower
// case, without Markdown emphasis, code marks and punctuation, with each
// space turned into a hyphen.
func githubSlug(heading string) string {
	// Links in a heading keep only their text.
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the anchors of a Markdown file the way GitHub renders
// them: one per heading, a repeated slug getting -1, -2, ...; plus HTML
// anchors.
func anchors(s string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range markdownProse(s) {
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			slug := githubSlug(m[2])
			if n := seen[slug]; n > 0 {
				out[slug+"-"+itoa(n)] = true
			} else {
				out[slug] = true
			}
			seen[slug]++
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
	}
	return out
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

func TestGithubSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Runbook: MintlifyUpstreamDown":       "runbook-mintlifyupstreamdown",
		"The `jobs` command":                  "the-jobs-command",
		"Big sites: walks that span hours":    "big-sites-walks-that-span-hours",
		"What survives a restart or a reload": "what-survives-a-restart-or-a-reload",
		"Bounds on input (and *limits*)":      "bounds-on-input-and-limits",
		"A [linked](x.md) heading":            "a-linked-heading",
		"snake_case and 1 – 2":                "snake_case-and-1--2",
	} {
		if got := githubSlug(in); got != want {
			t.Errorf("githubSlug(%q) = %q, want %q", in, got, want)
		}
	}
	got := anchors("# A\n\n```sh\n# not a heading\n```\n## A\n### B\n")
	for _, want := range []string{"a", "a-1", "b"} {
		if !got[want] {
			t.Errorf("anchors: %q missing from %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("anchors: a comment in a code block counted as a heading")
	}
}

// checkLink reports whether target, a link found in file from, resolves:
// the file or directory exists and, for a Markdown file, the #anchor is one
// of its headings.
func checkLink(t *testing.T, from, target string) {
	t.Helper()
	path, frag, _ := strings.Cut(target, "#")
	var resolved string
	switch {
	case strings.HasPrefix(target, repoBlobURL):
		path, frag, _ = strings.Cut(strings.TrimPrefix(target, repoBlobURL), "#")
		resolved = filepath.FromSlash(path)
	case path == "":
		resolved = from
	default:
		resolved = filepath.Join(filepath.Dir(from), filepath.FromSlash(path))
	}
	info, err := os.Stat(resolved)
	if err != nil {
		t.Errorf("%s: link %q: %s does not exist", from, target, resolved)
		return
	}
	if frag == "" {
		return
	}
	if info.IsDir() || !strings.HasSuffix(resolved, ".md") {
		t.Errorf("%s: link %q: an anchor into %s, which is not a Markdown file", from, target, resolved)
		return
	}
	b, err := os.ReadFile(resolved)
	if err != nil {
		t.Fatal(err)
	}
	if !anchors(string(b))[frag] {
		t.Errorf("%s: link %q: %s has no heading with the anchor #%s", from, target, resolved, frag)
	}
}

// TestDocLinks checks that every relative link of the README and docs/
// (and of the other READMEs) resolves, to a file and to a heading, so
// moving text between files cannot leave a dead link behind.
func TestDocLinks(t *testing.T) {
	checked := 0
	for _, file := range docFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		prose := markdownProse(string(b))
		for i, line := range prose {
			prose[i] = codeSpan.ReplaceAllString(line, "")
		}
		text := strings.Join(prose, "\n")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range refDefinition.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if !strings.HasPrefix(target, repoBlobURL) && (strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:")) {
				continue
			}
			checkLink(t, file, target)
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d links checked; is the link pattern still right?", checked)
	}
}

// TestRepoLinksInRulesAndDashboard checks the links into this repository
// that the alert rules (runbook_url), their generated PrometheusRule and
// the dashboard carry.
func TestRepoLinksInRulesAndDashboard(t *testing.T) {
	blob := regexp.MustCompile(regexp.QuoteMeta(repoBlobURL) + `[^\s"'<>)]+`)
	checked := 0
	for _, file := range []string{
		"dashboards/alerts.yml", "dashboards/alerts_test.yml", "dashboards/alerts_month_test.yml", "dashboards/mintlify.json",
		"deploy/kubernetes/prometheusrule.yaml",
	} {
		b, err := os.ReadFile(filepath.FromSlash(file))
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range blob.FindAllString(string(b), -1) {
			checkLink(t, file, target)
			checked++
		}
	}
	if checked == 0 {
		t.Error("no link into the repository found in the rules and the dashboard")
	}
}

// TestPodmanWithoutSystemd: docs/deployment.md gives podman's settings
// for a host without systemd (the containers.conf e2e/image.sh writes)
// right after its `podman run`, before the paragraph about the image
// test, where a reader who copies the command finds them.
func TestPodmanWithoutSystemd(t *testing.T) {
	doc := readFile(t, "docs/deployment.md")
	script := readFile(t, "e2e/image.sh")
	run := strings.Index(doc, "\npodman run ")
	if run < 0 {
		t.Fatal("docs/deployment.md gives no podman run")
	}
	after := doc[run:]
	end := strings.Index(after, "\n```\n") // the end of the podman run block
	e2e := strings.Index(after, "`make e2e-image`")
	if end < 0 || e2e < end {
		t.Fatalf("docs/deployment.md: no end of the podman run block before `make e2e-image`")
	}
	between := after[end:e2e]
	for _, setting := range []string{`cgroup_manager = "cgroupfs"`, `default_ulimits = []`} {
		if !strings.Contains(between, setting) {
			t.Errorf("docs/deployment.md does not give %s between its podman run and `make e2e-image`", setting)
		}
		if !strings.Contains(script, setting) {
			t.Errorf("e2e/image.sh does not write %s, which the docs give", setting)
		}
	}
	if !strings.Contains(between, "containers.conf") || !strings.Contains(between, "rlimit") {
		t.Error("docs/deployment.md does not say where the settings go (containers.conf) or which error they fix (rlimit)")
	}
}

// TestPromtoolCommandsAgree: every `promtool tsdb create-blocks-from`
// command the docs give passes the --max-block-duration that
// docs/backfill.md recommends (and explains), so that a reader who copies
// the README's gets the same blocks.
func TestPromtoolCommandsAgree(t *testing.T) {
	flag := regexp.MustCompile(`--max-block-duration=\S+`)
	cmd := regexp.MustCompile(`(?m)^promtool tsdb create-blocks-from .*$`)
	want := flag.FindString(strings.Join(cmd.FindAllString(readFile(t, "docs/backfill.md"), -1), "\n"))
	if want == "" {
		t.Fatal("docs/backfill.md gives no promtool command with --max-block-duration")
	}
	n := 0
	for _, f := range docFiles(t) {
		for _, c := range cmd.FindAllString(readFile(t, f), -1) {
			n++
			if got := flag.FindString(c); got != want {
				t.Errorf("%s: %q passes %q, docs/backfill.md %q", f, c, got, want)
			}
		}
	}
	if n < 3 {
		t.Errorf("only %d promtool commands found", n)
	}
}

// TestReadmeShowsDocumentationGaps: the README says what the
// documentation gaps measure (the two collectors and their metrics) and
// names their two alerts, as dashboards/alerts.yml defines them; its
// sample output holds their series.
func TestReadmeShowsDocumentationGaps(t *testing.T) {
	readme, alerts := readFile(t, "README.md"), readFile(t, "dashboards/alerts.yml")
	i := strings.Index(readme, "\n## Documentation gaps\n")
	if i < 0 {
		t.Fatal("README.md has no section Documentation gaps")
	}
	section := readme[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	for _, want := range []string{"--collector.conversations", "--collector.feedback-backlog",
		"mintlify_assistant_conversations_total", "mintlify_assistant_unanswered_total",
		"mintlify_assistant_unanswered_pages_total", "mintlify_feedback_open",
		"mintlify_feedback_oldest_open_timestamp_seconds",
		"MintlifyAssistantUnansweredShareHigh", "MintlifyFeedbackWaiting"} {
		if !strings.Contains(section, "`"+want+"`") {
			t.Errorf("README.md's Documentation gaps section does not name %s", want)
		}
		if strings.HasPrefix(want, "Mintlify") && !strings.Contains(alerts, "alert: "+want+"\n") {
			t.Errorf("README.md names the alert %s, which dashboards/alerts.yml does not define", want)
		}
	}
	for _, series := range []string{"mintlify_assistant_conversations_total{", "mintlify_assistant_unanswered_total{", "mintlify_feedback_open{"} {
		if !strings.Contains(readme, "\n"+series) {
			t.Errorf("README.md's sample output holds no %s series", strings.TrimSuffix(series, "{"))
		}
	}
}
