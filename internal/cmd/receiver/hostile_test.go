package receiver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"text/template"
)

// jobRoutes is a routes file of one job route, r, whose template is file.
func jobRoutes(file string) string {
	return "projects: {p1: Docs}\nroutes:\n  - name: r\n    alert: A\n    labels: [{name: path}]\n    action: {kind: job, project: p1, prompt_template_file: '" + file + "'}\n"
}

// TestPromptTemplateOnlyInsideTheRoutesDirectory: a prompt template must be
// a regular file inside the routes file's directory, reached through no
// symbolic link that leads out of it; anything else is refused at load and
// by --config.check, naming the route and the field, and nothing of the file
// is read into a prompt. A link that stays inside (a Kubernetes ConfigMap
// mount's ..data) still works.
func TestPromptTemplateOnlyInsideTheRoutesDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and FIFOs")
	}
	top := t.TempDir()
	dir := filepath.Join(top, "etc")
	secretDir := filepath.Join(top, "outside")
	for _, d := range []string{dir, secretDir, filepath.Join(dir, "prompts"), filepath.Join(dir, "..data"), filepath.Join(dir, "adir")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "root:*:20228:0:99999:7:::"
	write(t, filepath.Join(secretDir, "shadow"), secret)
	write(t, filepath.Join(dir, "ok.tmpl"), "Fix {{.Labels.path}}.")
	write(t, filepath.Join(dir, "prompts", "sub.tmpl"), "Fix {{.Labels.path}}.")
	write(t, filepath.Join(dir, "..data", "cm.tmpl"), "Fix {{.Labels.path}}.")
	for link, target := range map[string]string{
		"cm.tmpl":       "..data/cm.tmpl",
		"abs-out.tmpl":  filepath.Join(secretDir, "shadow"),
		"rel-out.tmpl":  "../outside/shadow",
		"outdir":        "../outside",
		"null.tmpl":     "/dev/null",
		"environ.tmpl":  "/proc/self/environ",
		"chained.tmpl":  "rel-out.tmpl",
		"prompts/up.tm": "../../outside/shadow",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.tmpl"), 0o600); err != nil {
		t.Fatal(err)
	}
	routes := filepath.Join(dir, "routes.yml")
	for _, file := range []string{"ok.tmpl", "prompts/sub.tmpl", "cm.tmpl", filepath.Join(dir, "ok.tmpl"), "prompts/../ok.tmpl"} {
		write(t, routes, jobRoutes(file))
		if _, err := LoadConfig(routes); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	for _, file := range []string{
		filepath.Join(secretDir, "shadow"), "/etc/passwd", "/proc/self/environ", "/dev/null",
		"../outside/shadow", "../../../../../../../../etc/passwd", filepath.Join(dir, "..", "outside", "shadow"),
		"abs-out.tmpl", "rel-out.tmpl", "chained.tmpl", "outdir/shadow", "prompts/up.tm",
		"null.tmpl", "environ.tmpl", "fifo.tmpl", "adir", ".",
	} {
		write(t, routes, jobRoutes(file))
		_, err := LoadConfig(routes)
		if err == nil || !strings.Contains(err.Error(), "route r: prompt_template_file") || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: err = %v, want a refusal naming route r and prompt_template_file", file, err)
		}
	}
	write(t, routes, jobRoutes("rel-out.tmpl"))
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--config.file", routes, "--config.check"}, &out, &errb, nil, Options{}); code != 1 ||
		!strings.Contains(errb.String(), "route r: prompt_template_file") {
		t.Errorf("--config.check: exit %d, %q %q", code, out.String(), errb.String())
	}
}

// TestDefaultPatternRefusesHiddenSegments: a label value under the default
// pattern may not have a path segment starting with "." (.github/workflows,
// a/.git/x, ..), so a prompt cannot be pointed at CI files; page paths pass.
func TestDefaultPatternRefusesHiddenSegments(t *testing.T) {
	c, err := parseConfig([]byte(jobRoutes("t.tmpl")))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Routes[0]
	for v, ok := range map[string]bool{
		"quickstart": true, "api/auth/keys": true, "v1.2/intro": true, "/api/keys_v2.html": true, "a..b": true,
		".github/workflows/x": false, "a/.git/x": false, "..": false, ".": false, "../x": false, "a/./b": false, "/.env": false,
	} {
		_, err := r.slotValues(map[string]string{"path": v})
		if (err == nil) != ok {
			t.Errorf("value %q: err %v, want accepted %v", v, err, ok)
		}
	}
}

// TestTemplateWorkRefusedAtLoad: a template whose work could grow without
// bound on some label value (a range over a number or a variable, a range
// within a range, define/template/block, a function that builds text, which
// can double a value at each step) is refused at load, whatever its output
// for the placeholder values; the constructs a prompt needs still load.
func TestTemplateWorkRefusedAtLoad(t *testing.T) {
	dir := t.TempDir()
	routes := filepath.Join(dir, "routes.yml")
	write(t, routes, jobRoutes("t.tmpl"))
	for _, tmpl := range []string{
		"Fix {{.Labels.path}} of {{.Project}} ({{.Alert}}).",
		`{{if eq .Labels.path "x" "y"}}one{{else if ne (len .Labels.path) 3}}two{{else}}three{{end}}`,
		`{{range $k, $v := .Labels}}{{$k}}={{$v}} {{else}}none{{end}}{{with .Labels.path}}{{.}}{{end}}`,
		`{{with $p := index .Labels "path"}}{{if and $p (not (eq $p "a"))}}{{$p}}{{end}}{{end}}{{range $.Labels}}{{.}}{{break}}{{end}}`,
		"{{/* a comment */}}Fix {{- .Labels.path -}} .",
	} {
		write(t, filepath.Join(dir, "t.tmpl"), tmpl)
		if _, err := LoadConfig(routes); err != nil {
			t.Errorf("%s: %v", tmpl, err)
		}
	}
	for _, tmpl := range []string{
		"x{{range 3000000000}}{{end}}",
		`{{if eq .Labels.path "x"}}ok{{else}}{{range 50000000}}aaaa{{end}}{{end}}`,
		`{{$n := 1000000}}{{range $n}}{{end}}x`,
		`{{with 1000000}}{{range .}}{{end}}{{end}}x`,
		`{{range .Labels}}{{range $.Labels}}{{end}}{{end}}x`,
		`{{range (.Labels)}}{{end}}x`,
		`{{define "a"}}{{template "a" .}}{{end}}x`,
		`{{block "a" .}}x{{end}}`,
		`x{{$a := printf "%s%s" .Project .Project}}{{$a = printf "%s%s" $a $a}}`,
		`x{{if print .Project}}{{end}}`,
		`x{{len (slice .Project 1)}}`,
		`x{{html .Project | js | urlquery}}`,
		`x{{println}}`,
		`x{{call .Labels}}`,
	} {
		write(t, filepath.Join(dir, "t.tmpl"), tmpl)
		_, err := LoadConfig(routes)
		if err == nil || !strings.Contains(err.Error(), "route r: prompt template") {
			t.Errorf("%s: err = %v, want a refusal naming route r's template", tmpl, err)
		}
	}
}

// TestTemplateBoundedWhileItRenders: a render stops once its output passes
// MaxPromptBytes, so a template that would write far more never holds more
// than the bound in memory. (Such a template is refused at load; this one
// is set directly, to hold the bound of the render itself.)
func TestTemplateBoundedWhileItRenders(t *testing.T) {
	r := &Route{Name: "r"}
	r.tmpl = template.Must(template.New("r").Parse("{{range 5000000}}aaaa{{end}}"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := r.render(templateData{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "over 131072 bytes") {
		t.Errorf("err = %v, want the prompt's bound", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("the render allocated %d bytes for a 20 MB output, want it stopped at the bound (under 8 MiB)", got)
	}
}
