package mintlify_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/manualclock"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// These tests run the client against the simulated API, which shares no
// code with it: both are written from the vendor's documentation, so a
// disagreement shows up here.

const (
	rwKey = "mint_readwritekey123"
	roKey = "mint_readonlykey456"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func startMock(t *testing.T, sites map[string]mockapi.Site, mod func(*mockapi.Options)) (*mockapi.Running, *manualclock.Clock) {
	t.Helper()
	clock := manualclock.New(t0)
	o := mockapi.Options{
		Clock: clock,
		Keys: []mockapi.KeySpec{
			{Key: rwKey, Org: "acme", Scope: mockapi.ReadWrite},
			{Key: roKey, Org: "acme", Scope: mockapi.ReadOnly},
		},
		Projects: sites,
	}
	if mod != nil {
		mod(&o)
	}
	r, err := mockapi.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, clock
}

func keyOf(k string) secret.Secret { return secret.New(k) }

func client(t *testing.T, url, key string) *mintlify.Client {
	t.Helper()
	c, err := mintlify.New(mintlify.Options{BaseURL: url, Key: secret.New(key), RetryBase: time.Millisecond, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWalkReturnsExactlyTheDataSet(t *testing.T) {
	for _, n := range []int{0, 1, 250, 251, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			site := mockapi.Site{Seed: int64(n) + 1, Paths: n}
			api, _ := startMock(t, map[string]mockapi.Site{"p": site}, nil)
			c := client(t, api.URL(), roKey)
			r := mintlify.DateRange{From: t0.Add(-7 * 24 * time.Hour), To: t0}
			res := mintlify.NewWalk(mintlify.Views, r, 0)
			err := c.Continue(context.Background(), "p", res, mintlify.WalkOptions{Concurrency: 4})
			if err != nil {
				t.Fatal(err)
			}
			totals, rows := site.Views(r.From, r.To)
			if len(res.Rows) != len(rows) {
				t.Fatalf("%d rows, want %d", len(res.Rows), len(rows))
			}
			want := make(map[string]mockapi.Row, len(rows))
			for _, row := range rows {
				want[row.Path] = row
			}
			for _, got := range res.Rows {
				w, ok := want[got.Path]
				if !ok || float64(w.Human) != got.Human || float64(w.AI) != got.AI || float64(w.Total) != got.Total {
					t.Fatalf("row %+v, want %+v", got, w)
				}
				delete(want, got.Path)
			}
			if len(want) != 0 || res.Duplicates != 0 || res.Truncated {
				t.Fatalf("%d rows missing, %d duplicates, truncated %v", len(want), res.Duplicates, res.Truncated)
			}
			if res.Totals.Human != float64(totals.Human) || res.Totals.AI != float64(totals.AI) || res.Totals.Total != float64(totals.Total) {
				t.Fatalf("totals %+v, want %+v", res.Totals, totals)
			}
			if wantReq := max((n+249)/250, 1); res.Requests != wantReq || api.Server.CountRequests(nil) != wantReq {
				t.Fatalf("%d requests (%d seen upstream), want %d", res.Requests, api.Server.CountRequests(nil), wantReq)
			}
		})
	}
}

func TestWindowDayEdges(t *testing.T) {
	site := mockapi.Site{Seed: 9, Paths: 3}
	api, _ := startMock(t, map[string]mockapi.Site{"p": site}, nil)
	c := client(t, api.URL(), roKey)
	day := time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC)
	for _, r := range []mintlify.DateRange{
		{From: day, To: day.Add(24 * time.Hour)},
		{From: day.Add(24 * time.Hour), To: day.Add(48 * time.Hour)},
		{From: day.Add(23 * time.Hour), To: day.Add(25 * time.Hour)}, // straddles midnight
		{From: day.Add(23 * time.Hour), To: day.Add(24 * time.Hour)}, // last hour of the day only
	} {
		p, err := c.Rows(context.Background(), mintlify.Views, "p", r, 250, 0)
		if err != nil {
			t.Fatal(err)
		}
		totals, _ := site.Views(r.From, r.To)
		if p.Totals.Total != float64(totals.Total) {
			t.Errorf("%v–%v: total %v, want %d (dateTo is exclusive)", r.From, r.To, p.Totals.Total, totals.Total)
		}
	}
	for _, req := range api.Server.Requests() {
		if !strings.Contains(req.Query, "dateFrom=") || !strings.Contains(req.Query, "dateTo=") {
			t.Fatalf("request without both dates: %s", req.Query)
		}
	}
}

func TestJobsAgainstMock(t *testing.T) {
	api, clock := startMock(t, map[string]mockapi.Site{"p": {Seed: 1, Paths: 1}}, nil)
	c := client(t, api.URL(), rwKey)
	ctx := context.Background()
	j, err := c.CreateJob(ctx, "p", "Document the new endpoint")
	if err != nil {
		t.Fatal(err)
	}
	if j.ID == "" || j.Status != mintlify.JobActive || j.PRLink != nil || j.ArchivedAt != nil || j.CreatedAt.IsZero() || j.Repository == "" || j.Model == "" {
		t.Fatalf("created %+v", j)
	}
	clock.Advance(3 * time.Minute)
	got, err := c.GetJob(ctx, "p", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != mintlify.JobCompleted || got.PRLink == nil || !strings.HasPrefix(*got.PRLink, "https://github.com/") {
		t.Fatalf("after 3 minutes: %+v", got)
	}
	m, err := c.SendMessage(ctx, "p", j.ID, "Also add an example")
	if err != nil || m.ID != j.ID {
		t.Fatalf("message: %+v %v", m, err)
	}
	clock.Advance(3 * time.Hour)
	got, err = c.GetJob(ctx, "p", j.ID)
	if err != nil || got.Status != mintlify.JobArchived || got.ArchivedAt == nil {
		t.Fatalf("after 3 hours: %+v %v", got, err)
	}
	failing, _ := c.CreateJob(ctx, "p", "this one will fail")
	clock.Advance(3 * time.Minute)
	if got, _ := c.GetJob(ctx, "p", failing.ID); got.Status != mintlify.JobFailed || got.PRLink != nil {
		t.Fatalf("failing job: %+v", got)
	}
}

func TestErrorClassesAgainstMock(t *testing.T) {
	api, _ := startMock(t, map[string]mockapi.Site{"p": {Seed: 1, Paths: 10}}, func(o *mockapi.Options) {
		o.AgentBudgetPerHour = 1
		o.AnalyticsBudgetPerHour = 1
	})
	ctx := context.Background()
	r := mintlify.DateRange{From: t0.Add(-time.Hour), To: t0}
	if _, err := client(t, api.URL(), "mint_unknownkey").GetJob(ctx, "p", "x"); !mintlify.IsUnauthorized(err) {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := client(t, api.URL(), roKey).CreateJob(ctx, "p", "x"); !mintlify.IsForbidden(err) {
		t.Errorf("read-only key on POST: %v", err)
	}
	rw := client(t, api.URL(), rwKey)
	if _, err := rw.GetJob(ctx, "p", "job_nope"); !mintlify.IsNotFound(err) || !strings.Contains(err.Error(), "Job not found") {
		t.Errorf("unknown job: %v", err)
	}
	if _, err := rw.SendMessage(ctx, "p", "job_nope", "x"); !mintlify.IsNotFound(err) {
		t.Errorf("message to unknown job: %v", err)
	}
	if _, err := rw.CreateJob(ctx, "p", "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.CreateJob(ctx, "p", "second"); func() bool { l, _, _ := mintlify.IsRateLimited(err); return !l }() {
		t.Errorf("second create over a budget of 1: %v", err)
	}
	if _, err := rw.Rows(ctx, mintlify.Views, "p", r, 10, 0); err != nil {
		t.Fatal(err)
	}
	before := api.Server.CountRequests(nil)
	_, err := rw.Rows(ctx, mintlify.Views, "p", r, 10, 0)
	if l, _, _ := mintlify.IsRateLimited(err); !l {
		t.Fatalf("analytics over budget: %v", err)
	}
	if api.Server.CountRequests(nil) != before+1 {
		t.Fatal("a 429 was retried by the client")
	}
	if _, err := rw.Rows(ctx, mintlify.Views, "nope", r, 10, 0); !mintlify.IsNotFound(err) {
		t.Errorf("unknown project: %v", err)
	}
}

func TestBadRequestCarriesDetails(t *testing.T) {
	api, _ := startMock(t, map[string]mockapi.Site{"p": {Seed: 1, Paths: 10}}, nil)
	// The client refuses every invalid argument before sending it, so the
	// API's 400 is provoked with a fault to see its error body decoded.
	api.Server.SetFault(mockapi.Fault{Status: 400})
	_, err := client(t, api.URL(), roKey).Rows(context.Background(), mintlify.Views, "p", mintlify.DateRange{From: t0.Add(-time.Hour), To: t0}, 10, 0)
	var ae *mintlify.APIError
	if !mintlify.IsBadRequest(err) || !errors.As(err, &ae) || ae.Message == "" {
		t.Fatalf("400: %v", err)
	}
}

func TestFaultsAgainstMock(t *testing.T) {
	r := mintlify.DateRange{From: t0.Add(-time.Hour), To: t0}
	for _, tc := range []struct {
		name  string
		fault mockapi.Fault
		check func(error) bool
	}{
		{"malformed", mockapi.Fault{Body: mockapi.MalformedJSON}, isResponseError},
		{"truncated", mockapi.Fault{Body: mockapi.Truncated}, func(err error) bool { return err != nil }},
		{"oversize", mockapi.Fault{Body: mockapi.Oversize}, isResponseError},
		{"missing field", mockapi.Fault{Body: mockapi.MissingField, Field: "hasMore"}, isResponseError},
		{"html 502", mockapi.Fault{Status: 502, Body: mockapi.HTML}, mintlify.IsServerError},
		{"500", mockapi.Fault{Status: 500}, mintlify.IsServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, _ := startMock(t, map[string]mockapi.Site{"p": {Seed: 1, Paths: 10}}, nil)
			api.Server.SetFault(tc.fault)
			p, err := client(t, api.URL(), roKey).Rows(context.Background(), mintlify.Views, "p", r, 10, 0)
			if p != nil || !tc.check(err) {
				t.Fatalf("page %v, err %v", p, err)
			}
		})
	}
	t.Run("500 then recovery is retried", func(t *testing.T) {
		api, _ := startMock(t, map[string]mockapi.Site{"p": {Seed: 1, Paths: 10}}, nil)
		api.Server.SetFault(mockapi.Fault{Status: 500, Remaining: 1})
		if _, err := client(t, api.URL(), roKey).Rows(context.Background(), mintlify.Views, "p", r, 10, 0); err != nil {
			t.Fatalf("a single 500 should be retried: %v", err)
		}
	})
}

func isResponseError(err error) bool {
	var re *mintlify.ResponseError
	return errors.As(err, &re)
}

func TestOtherAnalyticsAgainstMock(t *testing.T) {
	site := mockapi.Site{Seed: 5, Paths: 300}
	api, _ := startMock(t, map[string]mockapi.Site{"p": site}, nil)
	c := client(t, api.URL(), roKey)
	ctx := context.Background()
	r := mintlify.DateRange{From: t0.Add(-7 * 24 * time.Hour), To: t0}

	res := mintlify.NewWalk(mintlify.Visitors, r, 0)
	if err := c.Continue(ctx, "p", res, mintlify.WalkOptions{}); err != nil {
		t.Fatal(err)
	}
	vt, vrows := site.Visitors(r.From, r.To)
	if len(res.Rows) != len(vrows) || res.Totals.Total != float64(vt.Total) || res.Totals.Human != float64(vt.Human) {
		t.Fatalf("visitors: %d rows totals %+v; want %d rows totals %+v", len(res.Rows), res.Totals, len(vrows), vt)
	}

	fb, err := c.FeedbackByPage(ctx, "p", r, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := site.Feedback(r.From, r.To)
	if len(fb.Rows) != min(len(want), 100) || fb.HasMore != (len(want) > 100) {
		t.Fatalf("feedback: %d rows hasMore %v; upstream has %d", len(fb.Rows), fb.HasMore, len(want))
	}
	if len(want) > 0 && (fb.Rows[0].Path != want[0].Path || fb.Rows[0].ThumbsDown != float64(want[0].ThumbsDown) || fb.Rows[0].Code != float64(want[0].Code)) {
		t.Fatalf("feedback row %+v, want %+v", fb.Rows[0], want[0])
	}

	terms, total := site.Searches(r.From, r.To)
	var got []mintlify.SearchRow
	cursor := ""
	for {
		p, err := c.Searches(ctx, "p", r, 7, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalSearches != float64(total) {
			t.Fatalf("totalSearches %v, want %d", p.TotalSearches, total)
		}
		got = append(got, p.Rows...)
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	if len(got) != len(terms) || (len(terms) > 0 && got[0].Query != terms[0].SearchQuery) {
		t.Fatalf("searches: %d terms, want %d", len(got), len(terms))
	}

	cs, err := c.AssistantCallerStats(ctx, "p", r)
	if err != nil {
		t.Fatal(err)
	}
	w := site.CallerStats(r.From, r.To)
	if cs.Web != float64(w.Web) || cs.API != float64(w.API) || cs.Other != float64(w.Other) || cs.Total != float64(w.Total) {
		t.Fatalf("caller stats %+v, want %+v", cs, w)
	}
	for _, ep := range []string{mockapi.EndpointVisitors, mockapi.EndpointFeedback, mockapi.EndpointSearches, mockapi.EndpointCallerStats} {
		if api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == ep && r.Status == 200 }) == 0 {
			t.Errorf("no successful %s request", ep)
		}
	}
}
