package serve

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

const twoProjects = `
global:
  api_url: %s
keys:
  - name: acme
    api_key_env: MAIN_TEST_KEY
projects:
  - id: proj-docs
    name: %s
    windows: [24h, 7d]
  - id: proj-blog
    name: blog
    windows: [24h, 7d]
`

// TestRenderedExpositionIsByteIdentical: the text /metrics written from
// the rendered data families is, byte for byte, what client_golang's own
// handler writes for the same collectors: two projects whose page series
// interleave in one family, two windows, every collector on; plain and
// gzip; after a reload that changes a label; and once the data is stale.
func TestRenderedExpositionIsByteIdentical(t *testing.T) {
	clock := manualclock.New(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	ts, s, api, cfgPath, _ := testServerClock(t, func(o *mockapi.Options) {
		o.Projects["proj-blog"] = mockapi.Site{Seed: 2, Paths: 40, OtherTraffic: true}
	}, clock, "--web.disable-exporter-metrics", "--collector.visitors", "--collector.feedback", "--collector.searches", "--collector.assistant")
	reference := httptest.NewServer(promhttp.HandlerFor(prometheus.Gatherers{s.registry, s.data}, promhttp.HandlerOpts{}))
	defer reference.Close()

	apply := func(name string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(twoProjects, api.URL(), name)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.reload(); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(stage string) string {
		t.Helper()
		body := scrapeSettled(t, ts, s, nil)
		_, want := get(t, reference.URL, nil)
		if body != want {
			t.Fatalf("%s: the rendered exposition differs from client_golang's:\n%s", stage, firstDifference(want, body))
		}
		if got := gunzipScrape(t, ts.URL+"/metrics"); got != want {
			t.Fatalf("%s: the gzip exposition differs once decompressed:\n%s", stage, firstDifference(want, got))
		}
		return body
	}

	apply("docs")
	body := compare("two projects")
	for _, want := range []string{`mintlify_page_views{path=`, `project="blog"`, `project="docs"`, "mintlify_page_visitors{", "mintlify_page_feedback{", "mintlify_search_hits{", "mintlify_assistant_queries{"} {
		if !strings.Contains(body, want) {
			t.Fatalf("%s missing: the comparison would prove little", want)
		}
	}
	if strings.Count(body, "# TYPE mintlify_page_views gauge") != 1 {
		t.Fatal("HELP/TYPE of mintlify_page_views not exactly once")
	}
	checkPromtool(t, body)

	apply("guide") // a label changes: the rendered bytes must follow
	if body := compare("after a reload"); !strings.Contains(body, `project="guide"`) || strings.Contains(body, `project="docs"`) {
		t.Fatal("the rendered series kept the old project label")
	}

	clock.Advance(4 * time.Hour) // past max_age, before any refresh answers
	api.Server.SetFault(mockapi.Fault{Status: 500})
	if body := compare("stale"); strings.Contains(body, "mintlify_page_views{") {
		t.Fatal("stale page series are still served")
	}

	// Formats not rendered in advance go through promhttp.
	code, hdr := head(t, ts.URL+"/metrics", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited")
	if code != 200 || !strings.Contains(hdr, "protobuf") {
		t.Fatalf("protobuf scrape: %d %s", code, hdr)
	}
}

// gunzipScrape scrapes with Accept-Encoding: gzip and returns the body
// decompressed (several gzip members read as one stream).
func gunzipScrape(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func head(t *testing.T, url, accept string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Content-Type")
}

// firstDifference shows where two expositions part.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("lengths differ: want %d lines, got %d", len(w), len(g))
}
