package mockapi

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

func TestRoutingErrors(t *testing.T) {
	s, _ := newTest(t, nil)
	for _, p := range []string{"/", "/v1/analytics/p1", "/v1/analytics/p1/nope", "/v1/analytics//views",
		"/v2/agent/p1/jobs", "/v2/agent/p1/job/", "/v2/agent/p1/job/x/messages", "/v1/agent/p1/job", "/v1/analytics/p1/views/"} {
		w := do(s, "GET", p, keyRW, "")
		wantStatus(t, w, 404)
		if e := decode[errResp](t, w); e.Error == nil {
			t.Errorf("%s: %s", p, w.Body.String())
		}
	}
	for _, c := range []struct{ method, path, allow string }{
		{"POST", "/v1/analytics/p1/views", "GET"},
		{"DELETE", "/v2/agent/p1/job/x", "GET"},
		{"GET", "/v2/agent/p1/job", "POST"},
		{"PUT", "/v2/agent/p1/job/x/message", "POST"},
	} {
		w := do(s, c.method, c.path, keyRW, "")
		wantStatus(t, w, http.StatusMethodNotAllowed)
		if w.Header().Get("Allow") != c.allow {
			t.Errorf("%s %s: Allow %q", c.method, c.path, w.Header().Get("Allow"))
		}
	}
}

func TestRequestLog(t *testing.T) {
	s, clk := newTest(t, nil)
	do(s, "GET", "/v1/analytics/p1/views?limit=5", keyRW, "")
	clk.Advance(time.Minute)
	j := createJob(t, s, "p2", "x")
	do(s, "GET", "/v2/agent/p2/job/"+j.ID, keyRO, "")
	do(s, "POST", "/v2/agent/p2/job/"+j.ID+"/message", keyRW, `{"prompt":"y"}`)
	do(s, "GET", "/v1/analytics/p1/searches", "", "")
	do(s, "GET", "/nowhere", "", "")
	reqs := s.Requests()
	want := []Request{
		{Method: "GET", Path: "/v1/analytics/p1/views", Query: "limit=5", Endpoint: EndpointViews, Org: "acme", ProjectID: "p1", Status: 200, Time: t0},
		{Method: "POST", Path: "/v2/agent/p2/job", Endpoint: EndpointCreateJob, Org: "acme", ProjectID: "p2", Status: 201, Time: t0.Add(time.Minute)},
		{Method: "GET", Path: "/v2/agent/p2/job/" + j.ID, Endpoint: EndpointGetJob, Org: "acme", ProjectID: "p2", JobID: j.ID, Status: 200, Time: t0.Add(time.Minute)},
		{Method: "POST", Path: "/v2/agent/p2/job/" + j.ID + "/message", Endpoint: EndpointSendMessage, Org: "acme", ProjectID: "p2", JobID: j.ID, Status: 200, Time: t0.Add(time.Minute)},
		{Method: "GET", Path: "/v1/analytics/p1/searches", Endpoint: EndpointSearches, ProjectID: "p1", Status: 401, Time: t0.Add(time.Minute)},
		{Method: "GET", Path: "/nowhere", Endpoint: EndpointUnknown, Status: 404, Time: t0.Add(time.Minute)},
	}
	if len(reqs) != len(want) {
		t.Fatalf("%d requests logged: %+v", len(reqs), reqs)
	}
	for i := range want {
		if reqs[i] != want[i] {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, reqs[i], want[i])
		}
	}
	if n := s.CountRequests(func(r Request) bool { return r.Org == "acme" }); n != 4 {
		t.Errorf("CountRequests = %d", n)
	}
	if n := s.CountRequests(nil); n != 6 {
		t.Errorf("CountRequests(nil) = %d", n)
	}
	s.ResetRequests()
	if len(s.Requests()) != 0 {
		t.Error("ResetRequests did not clear")
	}
}

func TestStartServesOverTCPConcurrently(t *testing.T) {
	run, err := Start(testOptions(RealClock{}))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				run.Server.SetPaths("p1", 100+i)
			}
			req, _ := http.NewRequest("GET", run.URL()+"/v1/analytics/p1/views?limit=250", nil)
			req.Header.Set("Authorization", "Bearer "+keyRW)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Errorf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}()
	}
	wg.Wait()
	if n := run.Server.CountRequests(nil); n != 8 {
		t.Errorf("%d requests", n)
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(run.URL() + "/"); err == nil {
		t.Error("still serving after Close")
	}
}

func TestSetPaths(t *testing.T) {
	s, _ := newTest(t, nil)
	s.SetPaths("p1", 3)
	p := decode[pageResp](t, do(s, "GET", "/v1/analytics/p1/views", keyRW, ""))
	if len(p.Views) != 3 {
		t.Fatalf("%d rows", len(p.Views))
	}
	if site, _ := s.Site("p1"); site.Seed != 1 {
		t.Fatal("SetPaths lost the seed")
	}
}
