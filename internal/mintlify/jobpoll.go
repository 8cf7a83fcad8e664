package mintlify

import (
	"context"
	"net/url"
)

// JobGetter is what following a job needs of a Client.
type JobGetter interface {
	GetJob(ctx context.Context, projectID, id string) (*Job, error)
}

// Observation is one poll of a job: the job, or that the API does not know it.
type Observation struct {
	Job      *Job // nil when not found; its PRLink is nil unless ValidPRLink
	NotFound bool
}

// PollJob polls job id once; a 404 is an observation, any other failure an error.
func PollJob(ctx context.Context, c JobGetter, projectID, id string) (Observation, error) {
	job, err := c.GetJob(ctx, projectID, id)
	if Classify(err).Kind == KindNotFound {
		return Observation{NotFound: true}, nil
	}
	if err != nil {
		return Observation{}, err
	}
	if job.PRLink != nil && !ValidPRLink(*job.PRLink) {
		cp := *job
		cp.PRLink = nil
		job = &cp
	}
	return Observation{Job: job}, nil
}

// PRLink is the job's valid pull-request link, or "".
func (o Observation) PRLink() string {
	if o.Job == nil || o.Job.PRLink == nil {
		return ""
	}
	return *o.Job.PRLink
}

// Done tells that following can learn nothing more: not found, ended, or a pull request opened.
func (o Observation) Done() bool {
	return o.NotFound || o.Job != nil && o.Job.Status.Terminal() || o.PRLink() != ""
}

// Since compares o with last, the follower's previous sight (zero if none): shown is a new status or link.
func (o Observation) Since(last Observation) (shown, ended bool) {
	if o.Job == nil {
		return false, false
	}
	first := last.Job == nil
	shown = first || o.Job.Status != last.Job.Status || o.PRLink() != last.PRLink()
	return shown, o.Job.Status.Terminal() && (first || !last.Job.Status.Terminal())
}

// ValidPRLink: an https URL of at most 2 KiB without credentials, the one text of a job's a follower keeps or labels a series with.
func ValidPRLink(s string) bool {
	if len(s) > 2048 {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil
}
