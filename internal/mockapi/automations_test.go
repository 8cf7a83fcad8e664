package mockapi

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestTriggerAutomation: 202 with the run's ids and a job the get-job
// call knows; 400 for a malformed id, an inactive or non-custom
// automation; 404 for one unknown or of another project; 403 for a
// read-only key; 10 per 10 s per organization, then 429 until a slot
// frees.
func TestTriggerAutomation(t *testing.T) {
	s, clk := newTest(t, nil)
	s.SetAutomation("p1", "fill-gaps", Automation{Active: true, CustomSchedule: true})
	s.SetAutomation("p1", "paused", Automation{Active: false, CustomSchedule: true})
	s.SetAutomation("p1", "on-push", Automation{Active: true})
	s.SetAutomation("g1", "theirs", Automation{Active: true, CustomSchedule: true})
	rec := do(s, http.MethodPost, "/v1/workflow/p1/fill-gaps/trigger", keyRW, "")
	if rec.Code != http.StatusAccepted {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var run struct{ SchemaID, InstanceID, JobID string }
	if err := json.Unmarshal(rec.Body.Bytes(), &run); err != nil || run.SchemaID != "fill-gaps" || run.InstanceID == "" || run.JobID == "" {
		t.Fatalf("body %s (%v)", rec.Body, err)
	}
	if _, ok := s.Job("p1", run.JobID); !ok {
		t.Errorf("job %s unknown to get-job", run.JobID)
	}
	for target, want := range map[string]int{
		"/v1/workflow/p1/bad%20id/trigger": http.StatusBadRequest,
		"/v1/workflow/p1/paused/trigger":   http.StatusBadRequest,
		"/v1/workflow/p1/on-push/trigger":  http.StatusBadRequest,
		"/v1/workflow/p1/nothing/trigger":  http.StatusNotFound,
		"/v1/workflow/p1/theirs/trigger":   http.StatusNotFound,
	} {
		if got := do(s, http.MethodPost, target, keyRW, "").Code; got != want {
			t.Errorf("%s: status %d, want %d", target, got, want)
		}
	}
	if got := do(s, http.MethodPost, "/v1/workflow/p1/fill-gaps/trigger", keyRO, "").Code; got != http.StatusForbidden {
		t.Errorf("read-only key: status %d, want 403", got)
	}
	for i := 2; i <= AutomationTriggersPerWindow; i++ {
		if got := do(s, http.MethodPost, "/v1/workflow/p1/fill-gaps/trigger", keyRW, "").Code; got != http.StatusAccepted {
			t.Fatalf("trigger %d: status %d", i, got)
		}
	}
	if got := do(s, http.MethodPost, "/v1/workflow/p1/fill-gaps/trigger", keyRW, "").Code; got != http.StatusTooManyRequests {
		t.Errorf("11th trigger in 10 s: status %d, want 429", got)
	}
	clk.Advance(AutomationTriggerWindow + time.Millisecond)
	if got := do(s, http.MethodPost, "/v1/workflow/p1/fill-gaps/trigger", keyRW, "").Code; got != http.StatusAccepted {
		t.Errorf("after the window: status %d, want 202", got)
	}
	n := s.CountRequests(func(r Request) bool { return r.Endpoint == EndpointTriggerAutomation })
	if n != 18 {
		t.Errorf("%d trigger requests recorded, want 18", n)
	}
}
