package mockapi

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func createJob(t *testing.T, s *Server, project, prompt string) jobResp {
	t.Helper()
	w := do(s, "POST", "/v2/agent/"+project+"/job", keyRW, `{"prompt":`+quote(prompt)+`}`)
	wantStatus(t, w, http.StatusCreated)
	return decode[jobResp](t, w)
}

func quote(s string) string { return string(appendString(nil, s)) }

func getJob(t *testing.T, s *Server, project, id string) jobResp {
	t.Helper()
	w := do(s, "GET", "/v2/agent/"+project+"/job/"+id, keyRW, "")
	wantStatus(t, w, 200)
	return decode[jobResp](t, w)
}

func TestJobLifecycleCompleted(t *testing.T) {
	s, clk := newTest(t, nil)
	j := createJob(t, s, "p1", "Document the new webhook")
	if j.Status != StatusActive || j.PRLink != nil || j.ArchivedAt != nil || j.ID == "" || j.Model == "" {
		t.Fatalf("new job %+v", j)
	}
	if j.Source.Repository != "https://github.com/acme/p1-docs" || j.Source.Ref == nil || *j.Source.Ref != "main" {
		t.Fatalf("source %+v", j.Source)
	}
	if c, err := time.Parse(time.RFC3339, j.CreatedAt); err != nil || !c.Equal(t0) {
		t.Fatalf("createdAt %q %v", j.CreatedAt, err)
	}
	clk.Advance(2*time.Minute - time.Second)
	if g := getJob(t, s, "p1", j.ID); g.Status != StatusActive {
		t.Fatalf("still active expected, got %s", g.Status)
	}
	clk.Advance(time.Second)
	g := getJob(t, s, "p1", j.ID)
	if g.Status != StatusCompleted || g.PRLink == nil || !strings.HasPrefix(*g.PRLink, "https://github.com/acme/p1-docs/pull/") {
		t.Fatalf("completed expected: %+v", g)
	}
	clk.Advance(time.Hour)
	g = getJob(t, s, "p1", j.ID)
	if g.Status != StatusArchived || g.ArchivedAt == nil || g.PRLink == nil {
		t.Fatalf("archived expected: %+v", g)
	}
	if a, _ := time.Parse(time.RFC3339, *g.ArchivedAt); !a.Equal(t0.Add(62 * time.Minute)) {
		t.Fatalf("archivedAt %s", *g.ArchivedAt)
	}
	w := do(s, "POST", "/v2/agent/p1/job/"+j.ID+"/message", keyRW, `{"prompt":"more"}`)
	wantStatus(t, w, 400) // archived jobs take no messages (mock's assumption)
}

func TestJobFailNoopAndFailJob(t *testing.T) {
	s, clk := newTest(t, func(o *Options) { o.JobActiveFor = time.Minute; o.JobArchiveAfter = 10 * time.Minute })
	failing := createJob(t, s, "p1", "please FAIL, loudly")
	noop := createJob(t, s, "p1", "noop: nothing to change")
	forced := createJob(t, s, "p1", "fine")
	failure := createJob(t, s, "p1", "failure is not the word") // only the whole word counts
	clk.Advance(30 * time.Second)
	if err := s.FailJob("p1", forced.ID); err != nil {
		t.Fatal(err)
	}
	if g := getJob(t, s, "p1", forced.ID); g.Status != StatusFailed || g.PRLink != nil {
		t.Fatalf("FailJob: %+v", g)
	}
	if err := s.FailJob("p1", forced.ID); err == nil {
		t.Error("FailJob on a failed job should error")
	}
	if err := s.FailJob("p1", "nope"); err == nil {
		t.Error("FailJob on unknown job should error")
	}
	clk.Advance(30 * time.Second)
	if g := getJob(t, s, "p1", failing.ID); g.Status != StatusFailed || g.PRLink != nil {
		t.Fatalf("fail prompt: %+v", g)
	}
	if g := getJob(t, s, "p1", noop.ID); g.Status != StatusCompleted || g.PRLink != nil {
		t.Fatalf("noop prompt: %+v", g)
	}
	if g := getJob(t, s, "p1", failure.ID); g.Status != StatusCompleted || g.PRLink == nil {
		t.Fatalf("'failure' prompt: %+v", g)
	}
	// The forced failure started its archive timer when it failed.
	clk.Advance(9*time.Minute + 30*time.Second)
	if g := getJob(t, s, "p1", forced.ID); g.Status != StatusArchived || g.PRLink != nil {
		t.Fatalf("forced archived: %+v", g)
	}
	if g := getJob(t, s, "p1", failing.ID); g.Status != StatusFailed {
		t.Fatalf("failing should still be failed: %+v", g)
	}
}

func TestMessageReactivates(t *testing.T) {
	s, clk := newTest(t, nil)
	j := createJob(t, s, "p1", "write docs")
	clk.Advance(5 * time.Minute)
	if g := getJob(t, s, "p1", j.ID); g.Status != StatusCompleted {
		t.Fatal(g.Status)
	}
	w := do(s, "POST", "/v2/agent/p1/job/"+j.ID+"/message", keyRW, `{"prompt":"now fail please"}`)
	wantStatus(t, w, 200)
	if m := decode[jobResp](t, w); m.Status != StatusActive || m.PRLink != nil || m.ID != j.ID || m.CreatedAt != j.CreatedAt {
		t.Fatalf("after message: %+v", m)
	}
	clk.Advance(2 * time.Minute)
	if g := getJob(t, s, "p1", j.ID); g.Status != StatusFailed {
		t.Fatalf("after failing message: %+v", g)
	}
}

func TestJobErrors(t *testing.T) {
	s, _ := newTest(t, nil)
	j := createJob(t, s, "p1", "x")
	for _, body := range []string{``, `{`, `[]`, `{}`, `{"prompt":""}`, `{"prompt":null}`, `{"prompt":5}`} {
		for _, path := range []string{"/v2/agent/p1/job", "/v2/agent/p1/job/" + j.ID + "/message"} {
			w := do(s, "POST", path, keyRW, body)
			wantStatus(t, w, 400)
			if e := decode[errResp](t, w); e.Error == nil || *e.Error == "" || e.Details != nil {
				t.Fatalf("%s %q: body %s", path, body, w.Body.String())
			}
		}
	}
	w := do(s, "GET", "/v2/agent/p1/job/nope", keyRW, "")
	wantStatus(t, w, 404)
	if w.Body.String() != `{"error":"Job not found"}` {
		t.Fatalf("404 body %s", w.Body.String())
	}
	// Jobs are per project.
	wantStatus(t, do(s, "GET", "/v2/agent/p2/job/"+j.ID, keyRW, ""), 404)
	wantStatus(t, do(s, "POST", "/v2/agent/p1/job", keyRW, `{"prompt":"`+strings.Repeat("x", 2<<20)+`"}`), 413)
}

func TestRefNullAndUniqueIDs(t *testing.T) {
	s, _ := newTest(t, nil)
	ids := map[string]bool{}
	var nullRefs int
	for range 8 {
		j := createJob(t, s, "p1", "x")
		if ids[j.ID] {
			t.Fatal("duplicate id")
		}
		ids[j.ID] = true
		if j.Source.Ref == nil {
			nullRefs++
		}
	}
	if nullRefs != 2 {
		t.Fatalf("%d null refs of 8, want 2", nullRefs)
	}
}

func TestSeedJob(t *testing.T) {
	s, _ := newTest(t, nil)
	old := s.SeedJob("p1", JobSeed{ID: "job_demo", Prompt: "old", CreatedAt: t0.Add(-3 * time.Hour)})
	running := s.SeedJob("p1", JobSeed{Prompt: "new"})
	failed := s.SeedJob("p2", JobSeed{CreatedAt: t0.Add(-10 * time.Minute), Fail: true, NullRef: true, Repository: "https://github.com/x/y"})
	if old != "job_demo" {
		t.Fatalf("id %q", old)
	}
	if g := getJob(t, s, "p1", old); g.Status != StatusArchived || g.ArchivedAt == nil {
		t.Fatalf("old: %+v", g)
	}
	if g := getJob(t, s, "p1", running); g.Status != StatusActive {
		t.Fatalf("running: %+v", g)
	}
	g := getJob(t, s, "p2", failed)
	if g.Status != StatusFailed || g.Source.Ref != nil || g.Source.Repository != "https://github.com/x/y" {
		t.Fatalf("failed: %+v", g)
	}
	if v, ok := s.Job("p2", failed); !ok || v.Status != StatusFailed {
		t.Fatalf("Job(): %+v %v", v, ok)
	}
}
