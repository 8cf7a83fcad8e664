package receiver

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a decision: the values of the actions' outcome label.
const (
	OutcomeActed     = "acted"
	OutcomeDryRun    = "dry_run"
	OutcomeCooldown  = "cooldown"
	OutcomeCapped    = "capped"
	OutcomeDuplicate = "duplicate"
	OutcomeRefused   = "refused"
	OutcomeError     = "error"
	OutcomeUnknown   = "unknown"
	// outcomeResolved is audited only: a resolved notification is no action.
	outcomeResolved = "resolved"
)

var outcomes = []string{OutcomeActed, OutcomeDryRun, OutcomeCooldown, OutcomeCapped, OutcomeDuplicate, OutcomeRefused, OutcomeError, OutcomeUnknown}

type metrics struct {
	notifications *prometheus.CounterVec
	actions       *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, cfg *Config, act bool) *metrics {
	m := &metrics{
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_receiver_notifications_total",
			Help: "Alertmanager notifications received, by status: firing, resolved, or why they were refused (unauthorized, too_large, malformed).",
		}, []string{"status"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mintlify_receiver_actions_total",
			Help: "Decisions on firing notifications, by route, action kind and outcome (acted, dry_run, cooldown, capped, duplicate, refused, error, unknown).",
		}, []string{"route", "kind", "outcome"}),
	}
	acting := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "mintlify_receiver_acting",
		Help: "1 when the receiver acts on Mintlify, 0 in a dry run.",
	})
	for _, s := range []string{"firing", "resolved", "unauthorized", "too_large", "malformed"} {
		m.notifications.WithLabelValues(s)
	}
	m.addRoutes(cfg)
	if act {
		acting.Set(1)
	}
	reg.MustRegister(m.notifications, m.actions, acting)
	return m
}

// addRoutes shows every outcome of each route at 0 from its start; a removed route's counts stay until a restart.
func (m *metrics) addRoutes(cfg *Config) {
	for _, r := range cfg.Routes {
		for _, o := range outcomes {
			m.actions.WithLabelValues(r.Name, r.Action.Kind, o)
		}
	}
}

// stateCollector exports the state file's last actions of each route and project and each project's cap left today.
type stateCollector struct {
	rc                     *receiver
	lastRoute, lastProject *prometheus.Desc
	capLeft                *prometheus.Desc
	job                    *prometheus.Desc
}

func newStateCollector(rc *receiver) *stateCollector {
	return &stateCollector{
		rc: rc,
		lastRoute: prometheus.NewDesc("mintlify_receiver_route_last_action_timestamp_seconds",
			"Unix time of the route's last action (an intent counts: see docs/loop.md); absent before the first.", []string{"route"}, nil),
		lastProject: prometheus.NewDesc("mintlify_receiver_project_last_action_timestamp_seconds",
			"Unix time of the last action on the project; absent before the first.", []string{"project"}, nil),
		capLeft: prometheus.NewDesc("mintlify_receiver_daily_cap_remaining",
			"Actions the project may still take today (UTC day).", []string{"project"}, nil),
		job: prometheus.NewDesc("mintlify_receiver_job_info",
			"Always 1: a job or automation run the route started (the newest 1000); job_id joins the exporter's mintlify_agent_job_* series.",
			[]string{"route", "project", "job_id", "run_id"}, nil),
	}
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lastRoute
	ch <- c.lastProject
	ch <- c.capLeft
	ch <- c.job
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	rc := c.rc
	rc.mu.Lock()
	defer rc.mu.Unlock()
	now := rc.now()
	for _, r := range rc.cfg.Routes {
		if t, ok := rc.st.d.LastAction[r.Name]; ok {
			ch <- prometheus.MustNewConstMetric(c.lastRoute, prometheus.GaugeValue, unix(t), r.Name)
		}
	}
	for _, p := range rc.cfg.projectIDs() {
		if t, ok := rc.st.d.ProjectLast[p]; ok {
			ch <- prometheus.MustNewConstMetric(c.lastProject, prometheus.GaugeValue, unix(t), p)
		}
		left := max(rc.cfg.DailyCap-rc.st.d.usedToday(p, now), 0)
		ch <- prometheus.MustNewConstMetric(c.capLeft, prometheus.GaugeValue, float64(left), p)
	}
	seen := map[jobEntry]bool{}
	for _, j := range rc.st.d.Jobs {
		k := jobEntry{Route: j.Route, Project: j.Project, JobID: j.JobID, RunID: j.RunID}
		if !seen[k] { // a state edited by hand must not break the scrape
			seen[k] = true
			ch <- prometheus.MustNewConstMetric(c.job, prometheus.GaugeValue, 1, j.Route, j.Project, j.JobID, j.RunID)
		}
	}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }
