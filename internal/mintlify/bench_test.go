package mintlify_test

import (
	"context"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
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

func startMockB(b *testing.B) (*mockapi.Running, *manualclock.Clock) {
	clock := manualclock.New(t0)
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

// BenchmarkConversationsDay walks one day of a site with 50 000
// conversations a month (70 an hour) from the simulated API, as the
// conversations collector will on each refresh late in the day, and
// reports the requests of the day (about 1 700 rows / 1 000 a page = 2)
// and the bytes allocated per walk (B/op; every page is decoded as a
// stream, one page at a time).
func BenchmarkConversationsDay(b *testing.B) {
	clock := manualclock.New(t0)
	api, err := mockapi.Start(mockapi.Options{
		Clock:                  clock,
		Keys:                   []mockapi.KeySpec{{Key: rwKey, Org: "acme", Scope: mockapi.ReadWrite}},
		Projects:               map[string]mockapi.Site{"p": {Seed: 4, Paths: 300, ConversationsPerHour: 70}},
		AnalyticsBudgetPerHour: -1,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = api.Close() })
	c, err := mintlify.New(mintlify.Options{BaseURL: api.URL(), Key: keyOf(rwKey)})
	if err != nil {
		b.Fatal(err)
	}
	day := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC)
	r := mintlify.DateRange{From: day, To: day.Add(24 * time.Hour), Days: true}
	b.ReportAllocs()
	var rows, requests int
	for range b.N {
		before := api.Server.CountRequests(nil)
		cursor := ""
		for {
			p, err := c.Conversations(context.Background(), "p", r, mintlify.ConversationsPageSize, cursor)
			if err != nil {
				b.Fatal(err)
			}
			rows += len(p.Rows)
			if !p.HasMore {
				break
			}
			cursor = p.NextCursor
		}
		requests += api.Server.CountRequests(nil) - before
	}
	b.ReportMetric(float64(rows)/float64(b.N), "conversations/day")
	b.ReportMetric(float64(requests)/float64(b.N), "requests/day")
}
