package mintlify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// JobStatus is an agent job's state.
type JobStatus string

// The documented statuses: active → completed or failed, later archived.
const (
	JobActive    JobStatus = "active"
	JobCompleted JobStatus = "completed"
	JobArchived  JobStatus = "archived"
	JobFailed    JobStatus = "failed"
)

// JobStatuses lists every status, in a fixed order for state-set metrics.
var JobStatuses = []JobStatus{JobActive, JobCompleted, JobArchived, JobFailed}

// Terminal reports whether the job will not change on its own (its later archiving does not matter).
func (s JobStatus) Terminal() bool { return s != JobActive }

func (s JobStatus) valid() bool { return slices.Contains(JobStatuses, s) }

// Job is an agent job as the v2 API returns it.
type Job struct {
	ID         string     `json:"id"`
	Status     JobStatus  `json:"status"`
	Repository string     `json:"repository"` // full GitHub URL
	Ref        *string    `json:"ref"`        // branch; nil when the API gives null
	Model      string     `json:"model"`
	PRLink     *string    `json:"prLink"` // nil until a pull request exists
	CreatedAt  time.Time  `json:"createdAt"`
	ArchivedAt *time.Time `json:"archivedAt"` // nil unless archived
}

type wireJob struct {
	ID     *string `json:"id"`
	Status *string `json:"status"`
	Source *struct {
		Repository *string `json:"repository"`
		Ref        *string `json:"ref"`
	} `json:"source"`
	Model      *string    `json:"model"`
	PRLink     *string    `json:"prLink"`
	CreatedAt  *time.Time `json:"createdAt"`
	ArchivedAt *time.Time `json:"archivedAt"`

	job Job
}

func (w *wireJob) validate() error {
	if w.ID == nil || *w.ID == "" {
		return errors.New(`missing required field "id"`)
	}
	if w.Status == nil {
		return errors.New(`missing required field "status"`)
	}
	st := JobStatus(*w.Status)
	if !st.valid() {
		return fmt.Errorf("unknown job status %q", *w.Status)
	}
	j := Job{ID: *w.ID, Status: st, PRLink: w.PRLink, ArchivedAt: w.ArchivedAt}
	if w.Source != nil {
		if w.Source.Repository != nil {
			j.Repository = *w.Source.Repository
		}
		j.Ref = w.Source.Ref
	}
	if w.Model != nil {
		j.Model = *w.Model
	}
	if w.CreatedAt != nil {
		j.CreatedAt = *w.CreatedAt
	}
	if j.PRLink != nil && *j.PRLink == "" {
		j.PRLink = nil
	}
	w.job = j
	return nil
}

func jobPath(projectID string, parts ...string) string {
	p := "/v2/agent/" + url.PathEscape(projectID) + "/job"
	for _, s := range parts {
		p += "/" + url.PathEscape(s)
	}
	return p
}

// GetJob reads one job. An unknown id is an *APIError with IsNotFound.
func (c *Client) GetJob(ctx context.Context, projectID, id string) (*Job, error) {
	if projectID == "" || id == "" {
		return nil, errors.New("mintlify get_job: project id and job id are required")
	}
	var w wireJob
	return result(&w.job, c.do(ctx, request{endpoint: "get_job", method: "GET", path: jobPath(projectID, id), idempotent: true}, &w))
}

type promptBody struct {
	Prompt string `json:"prompt"`
}

// CreateJob starts an agent job with prompt. It needs a write-scoped key.
func (c *Client) CreateJob(ctx context.Context, projectID, prompt string) (*Job, error) {
	if projectID == "" {
		return nil, errors.New("mintlify create_job: project id is required")
	}
	if strings.TrimSpace(prompt) == "" {
		return nil, errors.New("mintlify create_job: prompt is empty")
	}
	var w wireJob
	return result(&w.job, c.do(ctx, request{endpoint: "create_job", method: "POST", path: jobPath(projectID), body: promptBody{prompt}}, &w))
}

// SendMessage sends a follow-up prompt; an empty one, which the API refuses, is refused before any request.
func (c *Client) SendMessage(ctx context.Context, projectID, id, prompt string) (*Job, error) {
	if projectID == "" || id == "" {
		return nil, errors.New("mintlify send_message: project id and job id are required")
	}
	if prompt == "" {
		return nil, errors.New("mintlify send_message: prompt is empty (the API requires at least 1 character)")
	}
	var w wireJob
	return result(&w.job, c.do(ctx, request{endpoint: "send_message", method: "POST", path: jobPath(projectID, id, "message"), body: promptBody{prompt}}, &w))
}
