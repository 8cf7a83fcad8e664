package receiver

// Following the jobs the receiver started puts each pull request's link in the audit log and the state; the
// exporter follows the same jobs through the tracked-jobs file.

import (
	"context"
	"net/url"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

const (
	followPerRound = 20
	followFor      = 7 * 24 * time.Hour
	maxPRLinkBytes = 2048
	// outcomePROpened is audited only: the job of an earlier action opened its pull request.
	outcomePROpened = "pr_opened"
)

func (rc *receiver) follow(ctx context.Context) {
	if rc.client == nil {
		return
	}
	type target struct{ project, id string }
	var todo []target
	rc.mu.Lock()
	now := rc.now()
	for i := range rc.st.d.Jobs {
		j := &rc.st.d.Jobs[i]
		if j.Done || j.JobID == "" {
			continue
		}
		if now.Sub(j.At) > followFor {
			j.Done = true
			continue
		}
		if len(todo) < followPerRound {
			todo = append(todo, target{j.Project, j.JobID})
		}
	}
	rc.mu.Unlock()
	for _, tg := range todo {
		job, err := rc.client.GetJob(ctx, tg.project, tg.id)
		if err != nil {
			if mintlify.Classify(err).Kind == mintlify.KindNotFound {
				rc.followed(tg.project, tg.id, "", true) // e.g. a run's job the get-job call does not know
			}
			continue
		}
		link := ""
		if job.PRLink != nil && validPRLink(*job.PRLink) {
			link = *job.PRLink
		}
		if link != "" || job.Status.Terminal() {
			rc.followed(tg.project, tg.id, link, true)
		}
	}
}

func (rc *receiver) followed(project, jobID, link string, done bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for i := range rc.st.d.Jobs {
		j := &rc.st.d.Jobs[i]
		if j.Project != project || j.JobID != jobID || j.Done {
			continue
		}
		j.Done, j.PRLink = done, link
		if link != "" {
			rec := &auditRecord{Time: rc.now().UTC(), Route: j.Route, Fingerprints: []string{}, Project: project,
				Outcome: outcomePROpened, JobID: jobID, RunID: j.RunID, PRLink: link}
			for _, r := range rc.cfg.Routes {
				if r.Name == j.Route {
					rec.Action = r.Action.Kind
				}
			}
			rc.writeAudit(rec)
			rc.log.Info("Pull request opened", "route", j.Route, "job_id", jobID, "pr_link", link)
		}
	}
	if err := rc.st.save(); err != nil {
		rc.log.Error("Saving the state failed", "err", err)
	}
}

// validPRLink: an https URL of bounded length, the only text of the job's the receiver keeps.
func validPRLink(s string) bool {
	if len(s) > maxPRLinkBytes {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil
}
