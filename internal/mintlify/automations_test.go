package mintlify_test

import (
	"context"
	"testing"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// TestTriggerAutomation: the run's ids come back from a 202; an unknown
// automation is a not-found error; the trigger is sent once, never
// retried (it starts a run each time).
func TestTriggerAutomation(t *testing.T) {
	api, _ := startMock(t, map[string]mockapi.Site{"p1": {Seed: 1, Paths: 3}}, nil)
	api.Server.SetAutomation("p1", "fill-gaps", mockapi.Automation{Active: true, CustomSchedule: true})
	c, err := mintlify.New(mintlify.Options{BaseURL: api.URL(), Key: keyOf(rwKey)})
	if err != nil {
		t.Fatal(err)
	}
	run, err := c.TriggerAutomation(context.Background(), "p1", "fill-gaps")
	if err != nil || run.SchemaID != "fill-gaps" || run.InstanceID == "" || run.JobID == "" {
		t.Fatalf("run %+v, err %v", run, err)
	}
	if _, err := c.GetJob(context.Background(), "p1", run.JobID); err != nil {
		t.Errorf("the run's job: %v", err)
	}
	_, err = c.TriggerAutomation(context.Background(), "p1", "nothing")
	if mintlify.Classify(err).Kind != mintlify.KindNotFound {
		t.Errorf("unknown automation: err %v, want not found", err)
	}
	api.Server.SetFault(mockapi.Fault{Endpoint: mockapi.EndpointTriggerAutomation, Status: 503})
	_, err = c.TriggerAutomation(context.Background(), "p1", "fill-gaps")
	if mintlify.Classify(err).Kind != mintlify.KindServerError {
		t.Errorf("503: err %v", err)
	}
	if n := api.Server.CountRequests(func(r mockapi.Request) bool { return r.Endpoint == mockapi.EndpointTriggerAutomation }); n != 3 {
		t.Errorf("%d trigger requests, want 3 (a 503 is not retried)", n)
	}
}
