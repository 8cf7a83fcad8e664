package mintlify_test

import (
	"context"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// BenchmarkWalk10kPaths walks 10 000 paths (40 pages) from a simulated API
// that answers in 100 ms, one page at a time and then with the default
// bounded concurrency, in the same run. It reports both durations, the
// speed-up, and the request count of each (which must be equal).
// Targets: concurrent ≤ 1.5 s and ≥ 2.5× faster than sequential.
func BenchmarkWalk10kPaths(b *testing.B) {
	api, _ := startMockB(b)
	api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointViews, Latency: 100 * time.Millisecond})
	c, err := mintlify.New(mintlify.Options{BaseURL: api.URL(), Key: keyOf(rwKey)})
	if err != nil {
		b.Fatal(err)
	}
	r := mintlify.DateRange{From: t0.Add(-24 * time.Hour), To: t0}
	run := func(conc int) (time.Duration, int) {
		before := api.Server.CountRequests(nil)
		start := time.Now()
		// ExpectedPages is what the exporter passes from the last sweep.
		w := mintlify.NewWalk(mintlify.Views, r, 0)
		err := c.Continue(context.Background(), "p", w, mintlify.WalkOptions{Concurrency: conc, ExpectedPages: 40})
		if err != nil || len(w.Rows) != 10000 {
			b.Fatalf("sweep: %v", err)
		}
		return time.Since(start), api.Server.CountRequests(nil) - before
	}
	var seq, con time.Duration
	var seqReq, conReq int
	for range b.N {
		d, n := run(1)
		seq += d
		seqReq += n
		d, n = run(mintlify.DefaultWalkConcurrency)
		con += d
		conReq += n
	}
	b.ReportMetric(seq.Seconds()/float64(b.N), "sequential_s")
	b.ReportMetric(con.Seconds()/float64(b.N), "concurrent_s")
	b.ReportMetric(float64(seq)/float64(con), "x_speedup")
	b.ReportMetric(float64(seqReq)/float64(b.N), "sequential_requests")
	b.ReportMetric(float64(conReq)/float64(b.N), "concurrent_requests")
	if seqReq != conReq {
		b.Fatalf("request counts differ: %d sequential, %d concurrent", seqReq, conReq)
	}
}

func startMockB(b *testing.B) (*mockapi.Running, *mockapi.ManualClock) {
	clock := mockapi.NewManualClock(t0)
	r, err := mockapi.Start(mockapi.Options{
		Clock:                  clock,
		Keys:                   []mockapi.KeySpec{{Key: rwKey, Org: "acme", Scope: mockapi.ReadWrite}},
		Projects:               map[string]mockapi.Site{"p": {Seed: 4, Paths: 10000}},
		AnalyticsBudgetPerHour: -1,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() })
	return r, clock
}
