package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// publishedImage is where the release workflow pushes each release's
// image: ghcr.io/<the Go module's owner>/mintlify_exporter, tagged v and
// the version. The Makefile's RELEASE_IMAGE and the Helm chart's default
// image name it too.
const publishedImage = "ghcr.io/mintlify-exporter/mintlify_exporter"

// workflow is the part of a GitHub Actions workflow TestWorkflows reads.
type workflow struct {
	On   map[string]any `yaml:"on"`
	Env  map[string]string
	Jobs map[string]job
}

type job struct {
	Uses  string // a reusable workflow
	Steps []struct {
		Uses string
		Run  string
		With map[string]string
	}
}

var (
	// makeCall is a make command of a run: step; its words up to the end
	// of the command.
	makeCall = regexp.MustCompile(`(?m)\bmake((?:[ \t]+[^\s;&|>]+)+)`)
	// repoPath is a path of the repository a run: step names.
	repoPath = regexp.MustCompile(`(?:^|[\s"'=])((?:\.ci|\.github|packaging|deploy|dashboards|docs|e2e)/[A-Za-z0-9_./-]*[A-Za-z0-9_]|go\.mod|VERSION|CHANGELOG\.md)\b`)
	// pinnedAction is a step's remote action pinned to a commit, its tag in a comment.
	pinnedAction = regexp.MustCompile(`^\s*(?:- )?uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$`)
	// makeTarget is a target the Makefile defines.
	makeTarget = regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+):`)
)

// checkWorkflows returns what is wrong with the workflows (file name to
// text): a make target the Makefile does not define, a file or local
// workflow that does not exist, the triggers and steps the release
// process relies on.
func checkWorkflows(files map[string]string, makefile, goMod string, exists func(string) bool) []string {
	var bad []string
	targets := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(makefile, -1) {
		targets[m[1]] = true
	}
	parsed := map[string]workflow{}
	for name, text := range files {
		var w workflow
		if err := yaml.Unmarshal([]byte(text), &w); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		parsed[name] = w
		bad = append(bad, checkNames(name, w, targets, exists)...)
		for _, line := range strings.Split(text, "\n") {
			if u, ok := strings.CutPrefix(strings.TrimLeft(strings.TrimSpace(line), "- "), "uses: "); ok && !strings.HasPrefix(u, "./") && !pinnedAction.MatchString(line) {
				bad = append(bad, fmt.Sprintf("%s: %q is not pinned to a commit with its tag in a comment (uses: owner/name@<40 hex> # vX.Y.Z)", name, strings.TrimSpace(line)))
			}
		}
	}
	return append(bad, checkRelease(parsed, goMod)...)
}

// checkNames: every make target, file and local workflow a workflow
// names exists.
func checkNames(name string, w workflow, targets map[string]bool, exists func(string) bool) []string {
	var bad []string
	var texts []string
	for _, v := range w.Env {
		texts = append(texts, v)
	}
	for job, j := range w.Jobs {
		if p, ok := strings.CutPrefix(j.Uses, "./"); ok && !exists(p) {
			bad = append(bad, fmt.Sprintf("%s: job %s uses %s, which does not exist", name, job, j.Uses))
		}
		for _, s := range j.Steps {
			texts = append(texts, s.Run)
			for _, v := range s.With {
				texts = append(texts, v)
			}
			for _, m := range makeCall.FindAllStringSubmatch(s.Run, -1) {
				for _, word := range strings.Fields(m[1]) {
					if strings.HasPrefix(word, "-") || strings.Contains(word, "=") {
						continue
					}
					if !targets[word] {
						bad = append(bad, fmt.Sprintf("%s: job %s runs make %s, a target the Makefile does not define", name, job, word))
					}
				}
			}
		}
	}
	for _, text := range texts {
		for _, m := range repoPath.FindAllStringSubmatch(text, -1) {
			if !exists(m[1]) {
				bad = append(bad, fmt.Sprintf("%s names %s, which is not in the repository", name, m[1]))
			}
		}
	}
	return bad
}

// checkRelease: CI runs .ci/run on pull requests; the release runs on v*
// tags, after CI, and publishes the image under the module's owner.
func checkRelease(w map[string]workflow, goMod string) []string {
	var bad []string
	ci, ok := w["ci.yml"]
	if !ok {
		return []string{"no ci.yml"}
	}
	if _, ok := ci.On["pull_request"]; !ok {
		bad = append(bad, "ci.yml does not run on pull requests")
	}
	push, _ := ci.On["push"].(map[string]any)
	if branches, _ := push["branches"].([]any); !slices.Contains(branches, any("main")) {
		bad = append(bad, "ci.yml does not run on pushes to main")
	}
	if !slices.ContainsFunc(runs(ci), func(r string) bool { return regexp.MustCompile(`(?m)\bbash \.ci/run$`).MatchString(r) }) {
		bad = append(bad, "ci.yml does not run bash .ci/run")
	}
	rel, ok := w["release.yml"]
	if !ok {
		return append(bad, "no release.yml")
	}
	push, _ = rel.On["push"].(map[string]any)
	if tags, _ := push["tags"].([]any); !slices.Contains(tags, any("v*")) {
		bad = append(bad, "release.yml does not run on push of the tags v*")
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(rel.Jobs)), func(j job) bool { return j.Uses == "./.github/workflows/ci.yml" }) {
		bad = append(bad, "release.yml does not run ci.yml first")
	}
	owner := regexp.MustCompile(`(?m)^module github\.com/([^/]+)/`).FindStringSubmatch(goMod)
	if owner == nil || publishedImage != "ghcr.io/"+strings.ToLower(owner[1])+"/mintlify_exporter" {
		bad = append(bad, fmt.Sprintf("the published image %s is not ghcr.io/<the module's owner %v>/mintlify_exporter", publishedImage, owner))
	}
	if owner != nil && rel.Env["CHART_REPO"] != "oci://ghcr.io/"+strings.ToLower(owner[1])+"/charts" {
		bad = append(bad, fmt.Sprintf("release.yml pushes the chart to %q, not oci://ghcr.io/<the module's owner>/charts", rel.Env["CHART_REPO"]))
	}
	if rel.Env["IMAGE"] != publishedImage {
		bad = append(bad, fmt.Sprintf("release.yml pushes the image to %q, not %s", rel.Env["IMAGE"], publishedImage))
	}
	all := strings.Join(runs(rel), "\n")
	for _, want := range []string{"make release\n", "make release-image", "buildah manifest push --all", "latest", "helm push",
		"packaging/changelog-section.sh", "gh release create", "sha256sums.txt", "sha256sum mintlify-exporter-", "./*.deb", "./*.rpm"} {
		if !strings.Contains(all, want) {
			bad = append(bad, fmt.Sprintf("release.yml does not run %q", want))
		}
	}
	return bad
}

func runs(w workflow) []string {
	var out []string
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			out = append(out, s.Run)
		}
	}
	return out
}

// TestWorkflows: the GitHub workflows (make lint checks them with
// actionlint) name only make targets and files that exist, CI runs
// .ci/run on pull requests, and the release runs on v* tags after CI and
// publishes under the module's owner.
func TestWorkflows(t *testing.T) {
	files := map[string]string{}
	for _, name := range []string{"ci.yml", "release.yml"} {
		files[name] = readFile(t, filepath.Join(".github", "workflows", name))
	}
	makefile, goMod := readFile(t, "Makefile"), readFile(t, "go.mod")
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	for _, p := range checkWorkflows(files, makefile, goMod, exists) {
		t.Error(p)
	}
	if t.Failed() {
		return
	}
	for _, c := range []struct {
		what, file, from, to string
	}{
		{"a make target that does not exist", "release.yml", "run: make release-image ", "run: make release-images "},
		{"a script that does not exist", "release.yml", "bash packaging/changelog-section.sh", "bash packaging/changelog.sh"},
		{"a local workflow that does not exist", "release.yml", "./.github/workflows/ci.yml", "./.github/workflows/test.yml"},
		{"CI without .ci/run", "ci.yml", "  bash .ci/run\n", "  make test\n"},
		{"CI not on pull requests", "ci.yml", "  pull_request:\n", "  push:\n"},
		{"a release on every tag", "release.yml", `"v*"`, `"*"`},
		{"an image under another owner", "release.yml", "IMAGE: " + publishedImage, "IMAGE: ghcr.io/someone/mintlify_exporter"},
		{"a release without the packages", "release.yml", "./*.deb", "./*.zip"},
	} {
		text := files[c.file]
		if !strings.Contains(text, c.from) {
			t.Errorf("%s: nothing to change, %q not in %s", c.what, c.from, c.file)
			continue
		}
		files[c.file] = strings.Replace(text, c.from, c.to, 1)
		if len(checkWorkflows(files, makefile, goMod, exists)) == 0 {
			t.Errorf("%s passed the check", c.what)
		}
		files[c.file] = text
	}
	// The READMEs say where the chart is published.
	chartRef := "oci://ghcr.io/mintlify-exporter/charts/mintlify-exporter"
	if !strings.HasPrefix(chartRef, yamlEnv(t, files["release.yml"], "CHART_REPO")+"/") {
		t.Errorf("the docs' chart %s is not under release.yml's CHART_REPO", chartRef)
	}
	for _, doc := range []string{"README.md", filepath.Join(chartDir, "README.md")} {
		if !strings.Contains(readFile(t, doc), chartRef) {
			t.Errorf("%s does not say the chart is published at %s", doc, chartRef)
		}
		if !strings.Contains(readFile(t, doc), publishedImage) {
			t.Errorf("%s does not say the image is published at %s", doc, publishedImage)
		}
	}
	// The chart's default image is the published one.
	values := readFile(t, filepath.Join(chartDir, "values.yaml"))
	reg, repo, _ := strings.Cut(publishedImage, "/")
	if !strings.Contains(values, "\n  registry: "+reg+"\n") || !strings.Contains(values, "\n  repository: "+repo+"\n") {
		t.Errorf("the chart's default image is not %s (image.registry %s, image.repository %s)", publishedImage, reg, repo)
	}
}

// yamlEnv is a workflow's env value.
func yamlEnv(t *testing.T, text, name string) string {
	t.Helper()
	var w workflow
	if err := yaml.Unmarshal([]byte(text), &w); err != nil {
		t.Fatal(err)
	}
	return w.Env[name]
}
