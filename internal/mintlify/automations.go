package mintlify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"unicode"
)

// AutomationRun is a trigger's answer: the run, its automation, and its agent job (which get-job may not know).
type AutomationRun struct {
	SchemaID   string `json:"schemaId"`
	InstanceID string `json:"instanceId"`
	JobID      string `json:"jobId"`
}

const maxRunField = 256

func (r *AutomationRun) validate() error {
	for _, f := range []struct{ name, v string }{{"schemaId", r.SchemaID}, {"instanceId", r.InstanceID}, {"jobId", r.JobID}} {
		if len(f.v) > maxRunField {
			return fmt.Errorf("field %q is over %d bytes", f.name, maxRunField)
		}
		for _, c := range f.v {
			if !unicode.IsPrint(c) || unicode.IsSpace(c) {
				return fmt.Errorf("field %q holds a space or control character", f.name)
			}
		}
	}
	if r.InstanceID == "" {
		return errors.New(`missing required field "instanceId"`)
	}
	return nil
}

// TriggerAutomation starts a custom-schedule automation run now; like CreateJob, never retried once sent.
func (c *Client) TriggerAutomation(ctx context.Context, projectID, automationID string) (*AutomationRun, error) {
	if projectID == "" || automationID == "" {
		return nil, errors.New("mintlify trigger_automation: project id and automation id are required")
	}
	path := "/v1/workflow/" + url.PathEscape(projectID) + "/" + url.PathEscape(automationID) + "/trigger"
	var run AutomationRun
	return result(&run, c.do(ctx, request{endpoint: "trigger_automation", method: "POST", path: path}, &run))
}
