package receiver

// Checks run in outcome order: duplicate, refused, cooldown, capped, then dry_run or the action. The intent
// is written to the state file before the request and the outcome after, so nothing is sent twice.

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/trackfile"
)

type receiver struct {
	cfg           *Config
	act           bool
	client        *mintlify.Client
	now           func() time.Time
	log           *slog.Logger
	trackFile     string // tracked-jobs file, "" for none
	answerTimeout time.Duration
	token         *secret.Secret // bearer token; nil: none asked
	maxBody       int64
	m             *metrics

	// mu serialises decisions and guards cfg (swapped by a reload), the
	// state and the audit log.
	mu    sync.Mutex
	st    *store
	audit *auditLog
}

// process reports whether Alertmanager should retry (some action failed for now).
func (rc *receiver) process(ctx context.Context, msg *message) (retry bool) {
	for _, r := range rc.config().Routes {
		if msg.Status == "resolved" {
			if msg.matching(r) {
				rc.resolved(r, msg)
			}
			continue
		}
		alerts := msg.firing(r)
		if len(alerts) == 0 {
			continue
		}
		if rc.decide(ctx, r, msg, alerts) {
			retry = true
		}
	}
	return retry
}

// resolved forgets the group's action: its next firing is new (the cooldown still holds).
func (rc *receiver) resolved(r *Route, msg *message) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rec := rc.record(r, msg, nil)
	rec.Outcome = outcomeResolved
	if i := rc.st.find(r.Name, groupHash(msg.GroupKey)); i >= 0 && rc.st.d.Groups[i].State != entryIntent {
		rc.st.remove(i)
		if err := rc.st.save(); err != nil {
			rc.log.Error("Saving the state failed", "err", err)
		}
	}
	rc.writeAudit(rec)
}

func (rc *receiver) record(r *Route, msg *message, alerts []alert) *auditRecord {
	rec := &auditRecord{
		Time: rc.now().UTC(), Route: r.Name, GroupKey: msg.GroupKey, Fingerprints: []string{},
		Project: r.Action.Project, Action: r.Action.Kind, AutomationID: r.Action.AutomationID,
		TemplateHash: r.templateHash, DryRun: !rc.act,
	}
	for _, a := range alerts {
		rec.Fingerprints = append(rec.Fingerprints, a.Fingerprint)
	}
	return rec
}

func (rc *receiver) finish(rec *auditRecord) {
	rc.m.actions.WithLabelValues(rec.Route, rec.Action, rec.Outcome).Inc()
	rc.writeAudit(rec)
	lvl := slog.LevelInfo
	if rec.Outcome == OutcomeError || rec.Outcome == OutcomeUnknown {
		lvl = slog.LevelWarn
	}
	rc.log.Log(context.Background(), lvl, "Decision", "route", rec.Route, "project", rec.Project, "action", rec.Action,
		"outcome", rec.Outcome, "reason", rec.Reason, "job_id", rec.JobID, "run_id", rec.RunID, "dry_run", rec.DryRun)
}

func (rc *receiver) writeAudit(rec *auditRecord) {
	if err := rc.audit.write(rec); err != nil {
		rc.log.Error("Writing the audit log failed", "err", err)
	}
}

// reservation is what an intent changed, undone only when Mintlify certainly did not act.
type reservation struct {
	group       string
	lastRoute   time.Time
	hadRoute    bool
	lastProject time.Time
	hadProject  bool
	daily       dayCount
}

func (rc *receiver) decide(ctx context.Context, r *Route, msg *message, alerts []alert) (retry bool) {
	rc.mu.Lock()
	rec := rc.record(r, msg, alerts)
	res, ok := rc.check(r, rec, alerts[0])
	if !ok {
		defer rc.mu.Unlock()
		rc.finish(rec)
		return rec.Outcome == OutcomeError
	}
	rc.mu.Unlock()

	jobID, runID, err := "", "", errNotSent
	if ctx.Err() == nil {
		jobID, runID, err = rc.send(ctx, r, rec.Prompt)
	}

	rc.mu.Lock()
	defer rc.mu.Unlock()
	rec.Time = rc.now().UTC()
	return rc.settle(r, rec, res, jobID, runID, err)
}

// check: ok means act now, the intent written; otherwise rec holds the outcome.
func (rc *receiver) check(r *Route, rec *auditRecord, first alert) (res reservation, ok bool) {
	now := rc.now()
	group := groupHash(rec.GroupKey)
	i := rc.st.find(r.Name, group)
	if i >= 0 && (rc.st.d.Groups[i].State != entryDryRun || !rc.act) {
		rec.Outcome, rec.Reason = OutcomeDuplicate, "this route already decided on this group ("+rc.st.d.Groups[i].State+") while it fires"
		return res, false
	}
	values, err := r.slotValues(first.Labels)
	if err == nil && r.Action.Kind == KindJob {
		rec.Prompt, err = r.render(templateData{Alert: r.Alert, Project: rc.cfg.Projects[r.Action.Project], Labels: values})
	}
	if err != nil {
		rec.Outcome, rec.Reason = OutcomeRefused, err.Error()
		return res, false
	}
	if last, ok := rc.st.d.LastAction[r.Name]; ok && now.Before(last.Add(time.Duration(rc.cfg.Cooldown))) {
		rec.Outcome, rec.Reason = OutcomeCooldown, "the route acted at "+last.UTC().Format(time.RFC3339)
		return res, false
	}
	if rc.st.usedToday(r.Action.Project, now) >= rc.cfg.DailyCap {
		rec.Outcome, rec.Reason = OutcomeCapped, "the project's daily cap is used up"
		return res, false
	}
	if !rc.act {
		if i >= 0 {
			rc.st.remove(i)
		}
		rc.st.d.Groups = append(rc.st.d.Groups, groupEntry{Route: r.Name, Group: group, State: entryDryRun, At: now})
		rec.Outcome = OutcomeDryRun
		if err := rc.st.save(); err != nil {
			rc.log.Error("Saving the state failed", "err", err)
		}
		return res, false
	}
	if i >= 0 {
		rc.st.remove(i) // a dry run's entry: acting now
	}
	res = rc.reserve(r, group, now)
	if err := rc.st.save(); err != nil {
		rc.undo(r, res)
		rec.Outcome, rec.Reason = OutcomeError, "the intent could not be saved, nothing sent: "+err.Error()
		return res, false
	}
	return res, true
}

func (rc *receiver) reserve(r *Route, group string, now time.Time) reservation {
	d := &rc.st.d
	p := r.Action.Project
	res := reservation{group: group, daily: d.Daily[p]}
	res.lastRoute, res.hadRoute = d.LastAction[r.Name]
	res.lastProject, res.hadProject = d.ProjectLast[p]
	d.Groups = append(d.Groups, groupEntry{Route: r.Name, Group: group, State: entryIntent, At: now})
	d.LastAction[r.Name] = now
	d.ProjectLast[p] = now
	d.Daily[p] = dayCount{Day: now.UTC().Format(dayLayout), Count: rc.st.usedToday(p, now) + 1}
	return res
}

func (rc *receiver) undo(r *Route, res reservation) {
	d := &rc.st.d
	if i := rc.st.find(r.Name, res.group); i >= 0 {
		rc.st.remove(i)
	}
	delete(d.LastAction, r.Name)
	if res.hadRoute {
		d.LastAction[r.Name] = res.lastRoute
	}
	delete(d.ProjectLast, r.Action.Project)
	if res.hadProject {
		d.ProjectLast[r.Action.Project] = res.lastProject
	}
	d.Daily[r.Action.Project] = res.daily
}

func (rc *receiver) send(ctx context.Context, r *Route, prompt string) (jobID, runID string, err error) {
	if r.Action.Kind == KindJob {
		job, err := rc.client.CreateJob(ctx, r.Action.Project, prompt)
		if err != nil {
			return "", "", err
		}
		return job.ID, "", nil
	}
	run, err := rc.client.TriggerAutomation(ctx, r.Action.Project, r.Action.AutomationID)
	if err != nil {
		return "", "", err
	}
	return run.JobID, run.InstanceID, nil
}

// settle takes the intent back only on an answer saying Mintlify did nothing (429, 4xx, its own 5xx); any other
// failure (timeout, cut, unreadable answer, a gateway's 5xx) may have started a job: unknown, never retried.
func (rc *receiver) settle(r *Route, rec *auditRecord, res reservation, jobID, runID string, err error) (retry bool) {
	rec.JobID, rec.RunID = jobID, runID
	i := rc.st.find(r.Name, res.group)
	switch {
	case err == nil:
		rec.Outcome = OutcomeActed
		if i >= 0 {
			rc.st.d.Groups[i].State = entryActed
			rc.st.d.Groups[i].ID = stateID(jobID, runID)
		}
		rc.st.addJob(r, jobID, runID, rec.Time)
	case answeredNoAction(err):
		rc.undo(r, res)
		rec.Outcome, rec.Reason = OutcomeError, err.Error()
		retry = transient(err)
	default:
		if i >= 0 {
			rc.st.d.Groups[i].State = entryUnknown
		}
		rec.Outcome, rec.Reason = OutcomeUnknown, "Mintlify may have acted: "+err.Error()
		retry = true // the retry finds the entry: a duplicate, answered 200
	}
	if serr := rc.st.save(); serr != nil {
		rc.log.Error("Saving the state failed", "err", serr)
	}
	rc.finish(rec)
	if err == nil && jobID != "" && rc.trackFile != "" {
		if terr := trackfile.Append(rc.trackFile, r.Action.Project+"/"+jobID); terr != nil {
			rc.log.Error("Adding the job to the tracked-jobs file failed", "err", terr, "job_id", jobID)
		}
	}
	return retry
}

// addJob leaves out an id the state's check would refuse (the audit log has it).
func (s *store) addJob(r *Route, jobID, runID string, at time.Time) {
	if mintlify.CheckID(jobID) != nil {
		jobID = ""
	}
	if mintlify.CheckID(runID) != nil {
		runID = ""
	}
	if jobID == "" && runID == "" {
		return
	}
	s.d.Jobs = append(s.d.Jobs, jobEntry{Route: r.Name, Project: r.Action.Project, JobID: jobID, RunID: runID, At: at})
}

func stateID(jobID, runID string) string {
	for _, id := range []string{jobID, runID} {
		if id != "" && mintlify.CheckID(id) == nil {
			return id
		}
	}
	return ""
}

// errNotSent: an earlier route's request took the notification's time, so nothing reached Mintlify.
var errNotSent = errors.New("not sent: the notification's answer time ran out before this route's turn; the retry decides again")

// answeredNoAction: a 5xx counts only in the API's own error body, as a gateway's may come after Mintlify acted.
func answeredNoAction(err error) bool {
	if dialFailed(err) || errors.Is(err, errNotSent) {
		return true
	}
	switch mintlify.Classify(err).Kind {
	case mintlify.KindRateLimited, mintlify.KindUnauthorized, mintlify.KindForbidden,
		mintlify.KindNotFound, mintlify.KindBadRequest:
		return true
	case mintlify.KindServerError:
		var ae *mintlify.APIError
		return errors.As(err, &ae) && ae.Documented
	}
	return false
}

// dialFailed: no connection was made, so nothing reached Mintlify.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// transient: the same request may succeed later.
func transient(err error) bool {
	if dialFailed(err) || errors.Is(err, errNotSent) {
		return true
	}
	k := mintlify.Classify(err).Kind
	return k == mintlify.KindRateLimited || k == mintlify.KindServerError
}
