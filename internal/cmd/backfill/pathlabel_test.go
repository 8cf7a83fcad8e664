package backfill

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestBackfillPathLabels: the backfill's path labels follow the live
// exporter's rule (TestPathLabelValues in collector): no empty path;
// /a\xff (5 views) and /a\xfe (7) two series with their own counts; the
// text `\xff` and the byte 0xff one series with both counts; NUL and ESC
// escaped.
func TestBackfillPathLabels(t *testing.T) {
	h := newBackfillHarness(t, mockapi.Site{Seed: 3, Paths: 5}, nil)
	h.api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, ExtraRows: []mockapi.Row{
		{Path: "/a\xff", Human: 5, Total: 5},
		{Path: "/a\xfe", Human: 7, Total: 7},
		{Path: "", Human: 3, Total: 3},
		{Path: "/nul\x00x", Human: 1, Total: 1},
		{Path: "/esc\x1b[2J", Human: 1, Total: 1},
		{Path: `/b\xff`, Human: 2, Total: 2},
		{Path: "/b\xff", Human: 4, Total: 4},
	}})
	out := filepath.Join(h.dir, "paths.om")
	args := []string{"--from", "2026-09-01", "--to", "2026-09-02", "--paths", "100", "--output", out}
	if code, stderr := h.run(context.Background(), nil, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	got := map[string]float64{}
	for _, l := range parseOM(t, string(b)) {
		if l.name == "mintlify_page_views_total" && strings.Contains(l.labels, `traffic="human"`) && strings.HasPrefix(l.labels, `path="/`) {
			path := strings.TrimPrefix(strings.SplitN(l.labels, `",`, 2)[0], `path="`)
			if !strings.HasPrefix(path, "/docs/") {
				got[path] = max(got[path], l.value)
			}
		}
	}
	want := map[string]float64{`/a\\xff`: 5, `/a\\xfe`: 7, `/b\\xff`: 6, `/nul\\x00x`: 1, `/esc\\x1b[2J`: 1}
	if len(got) != len(want) {
		t.Errorf("odd paths written %v, want %v", got, want)
	}
	for p, v := range want {
		if got[p] != v {
			t.Errorf("path %s: %v, want %v", p, got[p], v)
		}
	}
	if strings.Contains(string(b), `path=""`) || strings.ContainsAny(string(b), "\x00\x1b\ufffd") {
		t.Errorf("an empty path, a control character or U+FFFD is written:\n%s", b)
	}
	checkPromtoolBlocks(t, out)
}
