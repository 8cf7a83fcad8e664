package receiver

// Following the jobs the receiver started puts each pull request's link in the audit log and the state; the
// exporter follows the same jobs through the tracked-jobs file.

import (
	"context"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

const (
	followPerRound = 20
	followFor      = 7 * 24 * time.Hour
	// outcomePROpened is audited only: the job of an earlier action opened its pull request.
	outcomePROpened = "pr_opened"
)

func (rc *receiver) follow(ctx context.Context) {
	if rc.client == nil {
		return
	}
	rc.mu.Lock()
	todo := rc.st.d.toFollow(rc.now())
	rc.mu.Unlock()
	for _, tg := range todo {
		obs, err := mintlify.PollJob(ctx, rc.client, tg.Project, tg.JobID)
		if err == nil && obs.Done() {
			// A 404 ends following too: e.g. a run's job the get-job call does not know.
			rc.followed(tg.Project, tg.JobID, obs.PRLink())
		}
	}
}

func (rc *receiver) followed(project, jobID, link string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for _, j := range rc.st.d.followed(project, jobID, link) {
		if link == "" {
			continue
		}
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
	rc.save()
}
