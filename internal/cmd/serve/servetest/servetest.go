// Package servetest runs the exporter inside another command's tests
// (backfill beside a running exporter, sharing its state file). Only test
// files import it.
package servetest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cmd/serve"
)

// Exporter is an exporter behind a test HTTP server.
type Exporter struct {
	*httptest.Server
	wait func() // returns once no refresh is running
}

// Start runs the exporter on the command line args with options o behind
// a test HTTP server; both stop when the test ends.
func Start(t *testing.T, args []string, o serve.Options) *Exporter {
	t.Helper()
	e := &Exporter{}
	o.Wait = &e.wait
	inst, err := serve.New(context.Background(), args, o)
	if err != nil {
		t.Fatal(err)
	}
	e.Server = httptest.NewServer(inst.Handler())
	t.Cleanup(func() {
		e.Close()
		inst.Close()
	})
	return e
}

// ScrapeSettled is /metrics once the refreshes a scrape starts have
// finished, however slow the machine: it scrapes once (which starts the
// due refreshes), waits for the exporter to go idle, and returns a second
// scrape, which starts nothing new.
func ScrapeSettled(t *testing.T, e *Exporter, hdr map[string]string) string {
	t.Helper()
	get := func() string {
		req, _ := http.NewRequest(http.MethodGet, e.URL+"/metrics", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("scrape answered %d: %s", resp.StatusCode, b)
		}
		return string(b)
	}
	get()
	e.wait()
	return get()
}
