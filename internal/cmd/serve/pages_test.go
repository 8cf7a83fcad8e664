package serve

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/toolcheck"
)

// styleRE is a page's style element.
var styleRE = regexp.MustCompile(`(?s)<style>(.*?)</style>`)

// TestDemoPageStyledAsLanding: /-/demo/ wears the landing page's frame and
// style (the same header and stylesheet), and both pages say what the
// documentation gaps measure and name their alerts.
func TestDemoPageStyledAsLanding(t *testing.T) {
	ts := demoServer(t, "--mintlify.tracked-jobs-file="+filepath.Join(t.TempDir(), "jobs.txt"))
	_, landing := get(t, ts.URL+"/", nil)
	_, demo := get(t, ts.URL+demoPagePath, nil)
	ls, ds := styleRE.FindStringSubmatch(landing), styleRE.FindStringSubmatch(demo)
	if ls == nil || ds == nil || ls[1] != ds[1] {
		t.Errorf("the demo page's style is not the landing page's:\nlanding %q\ndemo %q", ls, ds)
	}
	for _, want := range []string{"<header>", "<h1>" + exporterName + "</h1>", "white-space: pre-wrap"} {
		if !strings.Contains(demo, want) || !strings.Contains(landing, want) {
			t.Errorf("the landing page or the demo page lacks %q", want)
		}
	}
	for _, want := range []string{"Documentation gaps", "--collector.conversations", "--collector.feedback-backlog",
		"MintlifyAssistantUnansweredShareHigh", "MintlifyFeedbackWaiting"} {
		if !strings.Contains(landing, want) {
			t.Errorf("the landing page does not mention %s", want)
		}
	}
}

// TestPagesFitTheWindow renders the landing page and /-/demo/ in headless
// chromium in a 1280 px wide window and checks that neither is wider:
// the demo page's create command with --track and a long tracked-jobs
// path used to widen it.
func TestPagesFitTheWindow(t *testing.T) {
	// A tracked-jobs path as long as a checkout's in a home directory.
	dir := filepath.Join(t.TempDir(), "home", "someone", "src", "github.com", "mintlify-exporter", "mintlify_exporter", ".demo")
	if err := os.MkdirAll(dir, 0o755); err != nil { // a missing directory is refused at start
		t.Fatal(err)
	}
	ts := demoServer(t, "--mintlify.tracked-jobs-file="+filepath.Join(dir, "jobs.txt"))
	pages := map[string]string{}
	for _, path := range []string{"/", demoPagePath} {
		_, pages[path] = get(t, ts.URL+path, nil)
	}
	if !strings.Contains(pages[demoPagePath], "--track") {
		t.Fatalf("the demo page shows no --track:\n%s", pages[demoPagePath])
	}
	bin, ok := toolcheck.Find(t, "chromium-headless-shell", "apt-get install chromium-headless-shell", "the pages' width in a browser")
	if !ok {
		return
	}
	for path, page := range pages {
		if w := pageWidth(t, bin, page); w > 1280 {
			t.Errorf("%s is %d px wide in a 1280 px window", path, w)
		}
	}
}

// pageWidth loads page in headless chromium, 1280 px wide, and returns
// its scroll width, which a script added to the page writes into the DOM
// that chromium dumps.
func pageWidth(t *testing.T, bin, page string) int {
	t.Helper()
	const probe = `<script>document.documentElement.setAttribute("data-width", document.documentElement.scrollWidth)</script>`
	i := strings.LastIndex(page, "</body>")
	if i < 0 {
		t.Fatalf("no </body> in %s", page)
	}
	f := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(f, []byte(page[:i]+probe+page[i:]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
		"--dump-dom", "file://"+f).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	m := regexp.MustCompile(`data-width="(\d+)"`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("chromium wrote no width:\n%s", out)
	}
	w, _ := strconv.Atoi(string(m[1]))
	return w
}
