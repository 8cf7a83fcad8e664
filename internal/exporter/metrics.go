package exporter

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// cacheNote tells a reader of /metrics that a cached value is not fetched on the scrape.
const cacheNote = " Served from the exporter's cache; see mintlify_last_refresh_success_timestamp_seconds for its age."

var familyDescs = func() map[string]*prometheus.Desc {
	ds := map[string]*prometheus.Desc{}
	for _, k := range collector.All {
		for _, f := range append(slices.Clone(k.Families), k.Bookkeeping...) {
			help := f.Help
			if !f.Live {
				help += cacheNote
			}
			ds[f.Name] = prometheus.NewDesc(f.Name, help, f.Labels, nil)
		}
	}
	return ds
}()

func familyDesc(name string) *prometheus.Desc {
	d, ok := familyDescs[name]
	if !ok {
		panic("no family " + name + " in collector/")
	}
	return d
}

var (
	descUp = prometheus.NewDesc("mintlify_up",
		"1 if the collector's last refresh succeeded (a refresh deferred by the rate limit does not count as a failure) and its data is younger than max_age, else 0.",
		[]string{"collector", "project"}, nil)
	descLastSuccess = prometheus.NewDesc("mintlify_last_refresh_success_timestamp_seconds",
		"Unix time of the collector's last successful refresh from the upstream API.",
		[]string{"collector", "project"}, nil)
	descInterval = prometheus.NewDesc("mintlify_refresh_interval_seconds",
		"Interval between refreshes that the analytics budget allows now (for agent_jobs, the poll interval).",
		[]string{"collector", "project"}, nil)
	descPartial = prometheus.NewDesc("mintlify_data_partial",
		"1 while the collector shows what a refresh round under way has read so far, not a complete round: a walk the budget spreads over hours (a big site's first page walk; the month's first walk of conversations, whose counters then hold the days finished and grow as it goes on). 0 otherwise.",
		[]string{"collector", "project"}, nil)
	descRefreshFailures = prometheus.NewDesc("mintlify_refresh_failures_total",
		"Refreshes that failed, by reason (rate_limited, unauthorized, forbidden, server_error, bad_response, timeout, other). A refresh the budget cuts short is no failure: it resumes.",
		[]string{"collector", "project", "reason"}, nil)

	descBudgetLimit = prometheus.NewDesc("mintlify_analytics_budget_limit_requests",
		"Analytics requests per hour this exporter allows itself for the API key (budget_per_hour minus reserve, times share).",
		[]string{"key"}, nil)
	descBudgetUsed = prometheus.NewDesc("mintlify_analytics_budget_used_requests",
		"Analytics requests this exporter made with the API key in the last hour (sliding window).",
		[]string{"key"}, nil)
	descBudgetCycle = prometheus.NewDesc("mintlify_analytics_budget_cycle_seconds",
		"Planned time of one full round of the analytics work under the API key on its budget: the longest mintlify_refresh_interval_seconds of its projects' collectors. Above max_age, data goes stale before it is refreshed.",
		[]string{"key"}, nil)
	descBackoff = prometheus.NewDesc("mintlify_analytics_backoff_seconds",
		"Seconds left before analytics requests with the API key resume, after a 429 answer or while the circuit breaker is open after upstream failures; 0 when not backing off.",
		[]string{"key"}, nil)
)

var (
	descJobStatus = prometheus.NewDesc("mintlify_agent_job_status",
		"State of a tracked agent job: one series per status (active, completed, archived, failed), 1 for the current one."+jobsNote,
		[]string{"job_id", "project", "status"}, nil)
	descJobInfo = prometheus.NewDesc("mintlify_agent_job_info",
		"Static facts of a tracked agent job; always 1."+jobsNote,
		[]string{"job_id", "model", "project", "ref", "repository"}, nil)
	descJobPR = prometheus.NewDesc("mintlify_agent_job_pull_request_info",
		"Pull request an agent job opened; always 1, present once the job has one."+jobsNote,
		[]string{"job_id", "project", "url"}, nil)
	descJobCreated = prometheus.NewDesc("mintlify_agent_job_created_timestamp_seconds",
		"Unix time an agent job was created.",
		[]string{"job_id", "project"}, nil)
	descJobArchived = prometheus.NewDesc("mintlify_agent_job_archived_timestamp_seconds",
		"Unix time an agent job was archived; present only for archived jobs.",
		[]string{"job_id", "project"}, nil)
	descJobsNotFound = prometheus.NewDesc("mintlify_agent_jobs_not_found_total",
		"Answers of 404 (job not found) to the polling of a tracked job id.",
		[]string{"project"}, nil)
	descJobsTracked = prometheus.NewDesc("mintlify_agent_jobs_tracked",
		"Job ids the exporter was told to follow (config file and tracked-jobs file) for the project.",
		[]string{"project"}, nil)
	descJobsIgnored = prometheus.NewDesc("mintlify_agent_jobs_ignored",
		"Job ids listed for the project but not followed because there were more than the cap of 10000; the oldest lines of the tracked-jobs file go first.",
		[]string{"project"}, nil)
)

const jobsNote = " Polled from the API only while the job is active; see mintlify_refresh_interval_seconds{collector=\"agent_jobs\"}."

var descDateFallback = prometheus.NewDesc("mintlify_analytics_date_fallback",
	"1 if the exported month-to-date counters of this collector were fetched with dateTo = now (RFC 3339) because the upstream answered the day range ending tomorrow with 400, else 0. The counters are then only as exact as the upstream's time resolution.",
	[]string{"collector", "project"}, nil)

var allDescs = func() []*prometheus.Desc {
	ds := []*prometheus.Desc{
		descUp, descLastSuccess, descInterval, descPartial, descRefreshFailures,
		descBudgetLimit, descBudgetUsed, descBudgetCycle, descBackoff,
		descJobStatus, descJobInfo, descJobPR, descJobCreated, descJobArchived, descJobsNotFound, descJobsTracked, descJobsIgnored,
		descDateFallback,
	}
	for _, k := range collector.All {
		for _, f := range append(slices.Clone(k.Families), k.Bookkeeping...) {
			ds = append(ds, familyDescs[f.Name])
		}
	}
	return ds
}()

// sample's label pairs are built once and shared between samples, so a scrape only copies
// pointers and a 100 000-path cache costs little more than its paths. With created, a counter.
type sample struct {
	desc    *prometheus.Desc
	labels  []*dto.LabelPair // sorted by name, as the registry expects
	value   float64
	created *timestamppb.Timestamp
}

func (s *sample) Desc() *prometheus.Desc { return s.desc }

func (s *sample) Write(m *dto.Metric) error {
	v := s.value
	m.Label = s.labels
	if s.created != nil {
		m.Counter = &dto.Counter{Value: &v, CreatedTimestamp: s.created}
		return nil
	}
	m.Gauge = &dto.Gauge{Value: &v}
	return nil
}

func labelPair(name, value string) *dto.LabelPair {
	return &dto.LabelPair{Name: &name, Value: &value}
}
