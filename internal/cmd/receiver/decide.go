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

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/trackfile"
)

type receiver struct {
	cfg           *Config
	act           bool
	client        api // nil in a dry run
	now           func() time.Time
	log           *slog.Logger
	trackFile     string // tracked-jobs file, "" for none
	answerTimeout time.Duration
	token         *secret.Secret // bearer token; nil: none asked
	maxBody       int64
	m             *metrics
	reloads       *cli.Reloads

	// mu serialises decisions and guards cfg (swapped by a reload), the state and the audit log.
	mu    sync.Mutex
	st    *store
	audit auditWriter
}

// api is what the receiver asks of *mintlify.Client; the tests of decisions put a fake behind it.
type api interface {
	CreateJob(ctx context.Context, projectID, prompt string) (*mintlify.Job, error)
	TriggerAutomation(ctx context.Context, projectID, automationID string) (*mintlify.AutomationRun, error)
	GetJob(ctx context.Context, projectID, id string) (*mintlify.Job, error)
}

// auditWriter is *auditLog; the tests of decisions keep the records in memory.
type auditWriter interface {
	write(rec *auditRecord) error
	close() error
}

// process reports whether Alertmanager should retry (some action failed for now).
func (rc *receiver) process(ctx context.Context, msg *message) (retry bool) {
	rc.mu.Lock()
	routes := rc.cfg.Routes
	rc.mu.Unlock()
	for _, r := range routes {
		if msg.Status == "resolved" {
			if msg.matching(r) {
				rc.resolved(r, msg)
			}
		} else if alerts := msg.firing(r); len(alerts) > 0 && rc.fire(ctx, r, msg, alerts) {
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
	if rc.st.d.resolve(r.Name, groupHash(msg.GroupKey)) {
		rc.save()
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

func (rc *receiver) save() {
	if err := rc.st.save(); err != nil {
		rc.log.Error("Saving the state failed", "err", err)
	}
}

// decision is a firing group's outcome on one route; OutcomeActed means: send now.
type decision struct{ outcome, reason, prompt string }

// decide runs the checks in outcome order on the state, the routes file and the clock alone; it changes nothing.
func decide(d *stateData, cfg *Config, act bool, r *Route, group string, first alert, now time.Time) decision {
	if i := d.find(r.Name, group); i >= 0 && (d.Groups[i].State != entryDryRun || !act) {
		return decision{outcome: OutcomeDuplicate, reason: "this route already decided on this group (" + d.Groups[i].State + ") while it fires"}
	}
	var dc decision
	values, err := r.slotValues(first.Labels)
	if err == nil && r.Action.Kind == KindJob {
		dc.prompt, err = r.render(templateData{Alert: r.Alert, Project: cfg.Projects[r.Action.Project], Labels: values})
	}
	switch last, ok := d.LastAction[r.Name]; {
	case err != nil:
		dc.outcome, dc.reason = OutcomeRefused, err.Error()
	case ok && now.Before(last.Add(time.Duration(cfg.Cooldown))):
		dc.outcome, dc.reason = OutcomeCooldown, "the route acted at "+last.UTC().Format(time.RFC3339)
	case d.usedToday(r.Action.Project, now) >= cfg.DailyCap:
		dc.outcome, dc.reason = OutcomeCapped, "the project's daily cap is used up"
	case !act:
		dc.outcome = OutcomeDryRun
	default:
		dc.outcome = OutcomeActed
	}
	return dc
}

// fire decides, writes the intent before the request and settles the outcome after it.
func (rc *receiver) fire(ctx context.Context, r *Route, msg *message, alerts []alert) (retry bool) {
	rc.mu.Lock()
	rec := rc.record(r, msg, alerts)
	now, group := rc.now(), groupHash(msg.GroupKey)
	dc := decide(&rc.st.d, rc.cfg, rc.act, r, group, alerts[0], now)
	rec.Outcome, rec.Reason, rec.Prompt = dc.outcome, dc.reason, dc.prompt
	var res reservation
	switch dc.outcome {
	case OutcomeDryRun:
		rc.st.d.dryRun(r.Name, group, now)
		rc.save()
	case OutcomeActed:
		res = rc.st.d.reserve(r.Name, r.Action.Project, group, now)
		if err := rc.st.save(); err != nil {
			rc.st.d.undo(res)
			rec.Outcome, rec.Reason = OutcomeError, "the intent could not be saved, nothing sent: "+err.Error()
		}
	}
	if rec.Outcome != OutcomeActed {
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
	switch {
	case err == nil:
		rec.Outcome = OutcomeActed
		rc.st.d.acted(res, jobID, runID, rec.Time)
	case answeredNoAction(err):
		rc.st.d.undo(res)
		rec.Outcome, rec.Reason = OutcomeError, err.Error()
		retry = transient(err)
	default:
		rc.st.d.unknown(res)
		rec.Outcome, rec.Reason = OutcomeUnknown, "Mintlify may have acted: "+err.Error()
		retry = true // the retry finds the entry: a duplicate, answered 200
	}
	rc.save()
	rc.finish(rec)
	if err == nil && jobID != "" && rc.trackFile != "" {
		if terr := trackfile.Append(rc.trackFile, r.Action.Project+"/"+jobID); terr != nil {
			rc.log.Error("Adding the job to the tracked-jobs file failed", "err", terr, "job_id", jobID)
		}
	}
	return retry
}

// errNotSent: an earlier route's request took the notification's time, so nothing reached Mintlify.
var errNotSent = errors.New("not sent: the notification's answer time ran out before this route's turn; the retry decides again")

// answeredNoAction: a 5xx counts only in the API's own error body, as a gateway's may come after Mintlify acted.
func answeredNoAction(err error) bool {
	if notSent(err) {
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

// notSent: no connection was made, or no request tried, so nothing reached Mintlify.
func notSent(err error) bool {
	var op *net.OpError
	return errors.Is(err, errNotSent) || errors.As(err, &op) && op.Op == "dial"
}

// transient: the same request may succeed later.
func transient(err error) bool {
	k := mintlify.Classify(err).Kind
	return notSent(err) || k == mintlify.KindRateLimited || k == mintlify.KindServerError
}
