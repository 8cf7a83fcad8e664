package mintlify_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// walkConversations reads every page of r through c, as a kind would.
func walkConversations(t *testing.T, c *mintlify.Client, project string, r mintlify.DateRange) ([]*mintlify.ConversationsPage, []mintlify.Conversation) {
	t.Helper()
	var pages []*mintlify.ConversationsPage
	var rows []mintlify.Conversation
	cursor := ""
	for {
		p, err := c.Conversations(context.Background(), project, r, mintlify.ConversationsPageSize, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages, rows = append(pages, p), append(rows, p.Rows...)
		if !p.HasMore {
			return pages, rows
		}
		if len(pages) > 1000 {
			t.Fatal("endless paging")
		}
		cursor = p.NextCursor
	}
}

func walkFeedback(t *testing.T, c *mintlify.Client, project string, f mintlify.FeedbackFilter) ([]*mintlify.FeedbackEntriesPage, []mintlify.FeedbackEntry) {
	t.Helper()
	var pages []*mintlify.FeedbackEntriesPage
	var rows []mintlify.FeedbackEntry
	cursor := ""
	for {
		p, err := c.FeedbackEntries(context.Background(), project, f, mintlify.MaxFeedbackEntriesLimit, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages, rows = append(pages, p), append(rows, p.Rows...)
		if !p.HasMore {
			return pages, rows
		}
		if len(pages) > 1000 {
			t.Fatal("endless paging")
		}
		cursor = p.NextCursor
	}
}

// The client reads a day of conversations as the simulator serves it,
// one request per ConversationsPageSize rows, each row's counted fields
// intact.
func TestConversationsAgainstSimulator(t *testing.T) {
	site := mockapi.Site{Seed: 3, Paths: 300, ConversationsPerHour: 60}
	api, _ := startMock(t, map[string]mockapi.Site{"p": site}, nil)
	c := client(t, api.URL(), roKey)
	day := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC)
	r := mintlify.DateRange{From: day, To: day.Add(24 * time.Hour), Days: true}
	_, got := walkConversations(t, c, "p", r)
	want := site.Conversations(r.From, r.To)
	if len(got) != len(want) || len(want) <= mintlify.ConversationsPageSize {
		t.Fatalf("%d conversations, want %d (more than a page)", len(got), len(want))
	}
	for i, w := range want {
		exp := mintlify.Conversation{ID: w.ID, Resolution: w.ResolutionStatus, ResponseType: mintlify.ResponseAnswer, Category: mintlify.Uncategorized}
		if w.ResponseType != nil {
			exp.ResponseType = *w.ResponseType
		}
		if w.QueryCategory != nil {
			exp.Category, _ = mintlify.Category(*w.QueryCategory)
		}
		if w.PageURL != nil {
			exp.Path = strings.TrimPrefix(*w.PageURL, mockapi.SiteURL)
		}
		exp.Time, _ = time.Parse(time.RFC3339, w.Timestamp)
		exp.Sources = len(w.Sources)
		for _, src := range w.Sources {
			u, err := url.Parse(src.URL)
			switch {
			case err != nil || !strings.HasPrefix(u.Scheme, "http"):
				exp.DroppedSources++
			case !slices.Contains(exp.Cited, u.Path):
				exp.Cited = append(exp.Cited, u.Path)
			}
		}
		slices.Sort(exp.Cited)
		if !reflect.DeepEqual(got[i], exp) {
			t.Fatalf("row %d = %+v, want %+v", i, got[i], exp)
		}
	}
	if n, want := api.Server.CountRequests(nil), (len(want)+mintlify.ConversationsPageSize-1)/mintlify.ConversationsPageSize; n != want {
		t.Errorf("%d requests, want %d", n, want)
	}
}

// Open feedback: the client asks for pending and in_progress entries
// only and gets every one of them, in every shape.
func TestFeedbackEntriesAgainstSimulator(t *testing.T) {
	site := mockapi.Site{Seed: 4, Paths: 300}
	api, _ := startMock(t, map[string]mockapi.Site{"p": site}, nil)
	c := client(t, api.URL(), roKey)
	from := t0.Add(-90 * 24 * time.Hour)
	f := mintlify.FeedbackFilter{Range: mintlify.DateRange{From: from, To: t0},
		Statuses: []string{mintlify.FeedbackPending, mintlify.FeedbackInProgress}}
	_, got := walkFeedback(t, c, "p", f)
	var want []mintlify.FeedbackEntry
	for _, e := range site.FeedbackEntries(from, t0) {
		if e.Status != "pending" && e.Status != "in_progress" {
			continue
		}
		exp := mintlify.FeedbackEntry{ID: e.ID, Status: e.Status, Source: e.Source, Path: strings.TrimPrefix(e.Path, mockapi.SiteURL)}
		if e.CreatedAt != nil {
			exp.Created = e.Created().Truncate(time.Millisecond)
		}
		want = append(want, exp)
	}
	if len(want) < 150 || !slices.Equal(got, want) {
		t.Fatalf("%d open entries read, want %d (at least 150, to page)", len(got), len(want))
	}
	sources := map[string]bool{}
	for _, e := range got {
		sources[e.Source] = true
	}
	if len(sources) != 4 {
		t.Errorf("sources read: %v", sources)
	}
	for _, req := range api.Server.Requests() {
		if !strings.Contains(req.Query, "status=pending%2Cin_progress") {
			t.Errorf("request %s does not ask for open entries only", req.Query)
		}
	}
}

// teeTransport keeps a copy of every body the client reads.
type teeTransport struct{ bodies *bytes.Buffer }

func (tt teeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	tt.bodies.Write(b)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, err
}

// A marker planted in every query, response, source, comment, contact and
// snippet the simulator serves reaches the client, and none of it is in
// what the client decodes.
func TestVisitorTextIsNeverDecoded(t *testing.T) {
	const marker = "MARKER-visitor-5e2b"
	site := mockapi.Site{Seed: 6, Paths: 300, VisitorText: marker}
	api, _ := startMock(t, map[string]mockapi.Site{"p": site}, nil)
	var bodies bytes.Buffer
	c, err := mintlify.New(mintlify.Options{BaseURL: api.URL(), Key: secret.New(roKey),
		HTTPClient: &http.Client{Transport: teeTransport{&bodies}}})
	if err != nil {
		t.Fatal(err)
	}
	convPages, _ := walkConversations(t, c, "p", mintlify.DateRange{From: t0.Add(-24 * time.Hour), To: t0})
	fbPages, _ := walkFeedback(t, c, "p", mintlify.FeedbackFilter{Range: mintlify.DateRange{From: t0.Add(-90 * 24 * time.Hour), To: t0}})
	if n := strings.Count(bodies.String(), marker); n < 500 {
		t.Fatalf("the marker came %d times in the bodies: not planted where it must be", n)
	}
	for _, what := range []string{`"query":`, `"response":`, `"sources":`, `"comment":`, `"contact":`, `"code":`} {
		if !strings.Contains(bodies.String(), what) {
			t.Fatalf("no %s field was served", what)
		}
	}
	for _, p := range convPages {
		if strings.Contains(fmt.Sprintf("%#v", *p), marker) {
			t.Fatal("a conversations page holds visitor text")
		}
		for _, r := range p.Rows {
			if strings.Contains(fmt.Sprintf("%#v", r), marker) {
				t.Fatalf("conversation %#v holds visitor text", r)
			}
		}
	}
	for _, p := range fbPages {
		if strings.Contains(fmt.Sprintf("%#v", *p), marker) {
			t.Fatal("a feedback page holds visitor text")
		}
		for _, r := range p.Rows {
			if strings.Contains(fmt.Sprintf("%#v", r), marker) {
				t.Fatalf("feedback entry %#v holds visitor text", r)
			}
		}
	}
}
