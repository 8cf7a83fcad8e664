package mockapi

// An automation run starts an agent job that get-job knows; the vendor does not say so, and the
// receiver does not count on it.

import (
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// EndpointTriggerAutomation is the trigger's name in Request.Endpoint.
const EndpointTriggerAutomation = "trigger_automation"

// Automation limits, as the vendor documents them.
const (
	AutomationTriggersPerWindow = 10
	AutomationTriggerWindow     = 10 * time.Second
)

// Automation is one automation of a project; only a custom schedule can be triggered.
type Automation struct {
	Active         bool
	CustomSchedule bool
}

type automationState struct {
	defs     map[string]map[string]Automation // project → id → automation
	triggers window                           // key: org
	seq      uint64
}

var automationIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// SetAutomation adds or replaces automation id of projectID.
func (s *Server) SetAutomation(projectID, id string, a Automation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.automations.defs[projectID] == nil {
		s.automations.defs[projectID] = map[string]Automation{}
	}
	s.automations.defs[projectID][id] = a
}

func (s *Server) triggerAutomation(c *call) *response {
	id := c.rt.jobID
	if !automationIDRE.MatchString(id) {
		return errorResponse(http.StatusBadRequest, false, "Invalid automation id")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.automations.defs[c.rt.project][id]
	switch {
	case !ok:
		return errorResponse(http.StatusNotFound, false, "Automation not found")
	case !a.Active:
		return errorResponse(http.StatusBadRequest, false, "Automation is not active")
	case !a.CustomSchedule:
		return errorResponse(http.StatusBadRequest, false, "Only custom schedule automations can be triggered")
	}
	if ok, wait := s.automations.triggers.admit(c.key.Org, AutomationTriggersPerWindow, c.now); !ok {
		return s.rateLimited(false, wait)
	}
	s.automations.seq++
	j := s.newJobLocked(c.rt.project, c.key.Org, "automation "+id, c.now)
	return jsonResponse(http.StatusAccepted, map[string]string{
		"schemaId":   id,
		"instanceId": fmt.Sprintf("run_%016x", mix64(s.automations.seq)),
		"jobId":      j.id,
	})
}
