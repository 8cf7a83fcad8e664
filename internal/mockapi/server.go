// Package mockapi simulates Mintlify's admin API with deterministic data, auth, rate limits, a
// clock-driven job lifecycle and faults, for tests, --demo and e2e. It shares no code with the
// client, so a misread vendor shape cannot hide in both; contract_test.go pins it to the OpenAPI.
package mockapi

import (
	"cmp"
	"errors"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Scope is what an admin key may do: GET needs read, POST needs write.
type Scope int

const (
	ReadOnly Scope = iota
	ReadWrite
)

// KeySpec is one admin API key the mock accepts.
type KeySpec struct {
	Key        string // must start with "mint_"; "mint_dsc_" and "mint_us_" never work
	Org        string // keys belong to an organization; rate limits are per org
	Scope      Scope
	ProjectIDs []string // the org's projects; empty: any
}

// Options configure a Server; zero values pick the documented defaults.
type Options struct {
	Clock    Clock // default RealClock
	Keys     []KeySpec
	Projects map[string]Site // any other project gets 404
	// AnalyticsBudgetPerHour is per org, shared by every analytics endpoint; negative: unlimited.
	AnalyticsBudgetPerHour int
	// AgentBudgetPerHour is create-job + send-message calls per project; negative: unlimited.
	AgentBudgetPerHour int
	// RetryAfter sets Retry-After on 429s; the vendor does not promise it, so test both ways.
	RetryAfter      bool
	JobActiveFor    time.Duration // a job or message; default 2m
	JobArchiveAfter time.Duration // after finishing; default 1h
	// MergeAfter merges an API-created job's pull request, closing Site.Gap; 0: never.
	MergeAfter  time.Duration
	MaxPageSize int // views and visitors; default 250
	// RefuseFutureDates answers a dateTo after the clock with 400, the strict reading of the docs.
	RefuseFutureDates bool
}

// Endpoint names recorded in Request.Endpoint and matched by Fault.Endpoint.
const (
	EndpointViews           = "views"
	EndpointVisitors        = "visitors"
	EndpointFeedback        = "feedback_by_page"
	EndpointSearches        = "searches"
	EndpointCallerStats     = "caller_stats"
	EndpointConversations   = "conversations"
	EndpointFeedbackEntries = "feedback_entries"
	EndpointCreateJob       = "create_job"
	EndpointGetJob          = "get_job"
	EndpointSendMessage     = "send_message"
	EndpointUnknown         = "unknown" // no route matched
)

// StatusClientClosed is recorded, never sent, when the client left during Latency (as nginx).
const StatusClientClosed = 499

// Request is one recorded request, for assertions such as "exactly 40 analytics calls".
type Request struct {
	Method    string
	Path      string // URL path
	Query     string // raw query
	Endpoint  string // one of the Endpoint* names
	Org       string // org of the key, "" if authentication failed
	ProjectID string
	JobID     string
	Status    int
	Time      time.Time // server clock at arrival
}

// maxRecorded keeps a long --demo run's request log bounded.
const maxRecorded = 100_000

// Server is safe for concurrent use; all setters may be called while it serves.
type Server struct {
	clock        Clock
	keys         map[string]KeySpec
	analyticsCap int
	agentCap     int
	retryAfter   bool
	activeFor    time.Duration
	archiveAfter time.Duration
	mergeAfter   time.Duration
	maxPage      int

	mu           sync.Mutex
	refuseFuture bool
	projects     map[string]Site
	faults       map[string]*faultState
	analytics    window // key: org
	agent        window // key: project id
	jobs         map[string]map[string]*job
	jobSeq       uint64
	automations  automationState

	reqMu sync.Mutex
	reqs  []Request
}

// New builds a Server from opts, filling defaults.
func New(opts Options) *Server {
	s := &Server{
		clock:        cmp.Or(opts.Clock, Clock(RealClock{})),
		keys:         map[string]KeySpec{},
		analyticsCap: cmp.Or(opts.AnalyticsBudgetPerHour, 100),
		agentCap:     cmp.Or(opts.AgentBudgetPerHour, 100),
		retryAfter:   opts.RetryAfter,
		activeFor:    positiveOr(opts.JobActiveFor, 2*time.Minute),
		archiveAfter: positiveOr(opts.JobArchiveAfter, time.Hour),
		mergeAfter:   opts.MergeAfter,
		maxPage:      positiveOr(opts.MaxPageSize, 250),
		refuseFuture: opts.RefuseFutureDates,
		projects:     map[string]Site{},
		faults:       map[string]*faultState{},
		analytics:    newWindow(time.Hour),
		agent:        newWindow(time.Hour),
		jobs:         map[string]map[string]*job{},
		automations:  automationState{defs: map[string]map[string]Automation{}, triggers: newWindow(AutomationTriggerWindow)},
	}
	maps.Copy(s.projects, opts.Projects)
	for _, k := range opts.Keys {
		k.ProjectIDs = slices.Clone(k.ProjectIDs)
		s.keys[k.Key] = k
	}
	return s
}

func positiveOr[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Running is a Server listening on a loopback port.
type Running struct {
	Server *Server
	hs     *http.Server
	url    string
}

// Start serves a new Server on 127.0.0.1 at a free port.
func Start(opts Options) (*Running, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := New(opts)
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return &Running{Server: s, hs: hs, url: "http://" + ln.Addr().String()}, nil
}

func (r *Running) URL() string { return r.url }

// Close drops open connections, so in-flight Latency faults end.
func (r *Running) Close() error {
	if err := r.hs.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// SetPaths resizes a project's site (seed 0 if unknown), e.g. a site that grows.
func (s *Server) SetPaths(projectID string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	site := s.projects[projectID]
	site.Paths = n
	s.projects[projectID] = site
}

func (s *Server) SetRefuseFutureDates(refuse bool) {
	s.mu.Lock()
	s.refuseFuture = refuse
	s.mu.Unlock()
}

func (s *Server) SetSite(projectID string, site Site) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projects[projectID] = site
}

func (s *Server) Site(projectID string) (Site, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	site, ok := s.projects[projectID]
	return site, ok
}

// Requests returns a copy of the request log, oldest first.
func (s *Server) Requests() []Request {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// CountRequests counts logged requests that filter (nil: all) accepts.
func (s *Server) CountRequests(filter func(Request) bool) int {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if filter == nil || filter(r) {
			n++
		}
	}
	return n
}

// MostInAnyHour is the most requests within any hour, endpoints in skip left out.
func (s *Server) MostInAnyHour(skip ...string) int {
	var times []time.Time
	for _, r := range s.Requests() {
		if !slices.Contains(skip, r.Endpoint) {
			times = append(times, r.Time)
		}
	}
	most := 0
	for i := range times {
		n := 0
		for j := i; j < len(times) && times[j].Sub(times[i]) < time.Hour; j++ {
			n++
		}
		most = max(most, n)
	}
	return most
}

// ResetRequests empties the request log; budgets and jobs stay.
func (s *Server) ResetRequests() {
	s.reqMu.Lock()
	s.reqs = nil
	s.reqMu.Unlock()
}

func (s *Server) record(r Request) {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	if len(s.reqs) >= maxRecorded {
		s.reqs = append(s.reqs[:0], s.reqs[len(s.reqs)-maxRecorded+1:]...)
	}
	s.reqs = append(s.reqs, r)
}

type route struct {
	endpoint  string
	method    string // the only method allowed
	analytics bool   // error bodies use the analytics shape
	project   string
	jobID     string
}

// analyticsRoutes are the simulator's own paths under /v1/analytics/{projectId}/: it shares no code with the exporter.
var analyticsRoutes = map[string]string{
	"views":                  EndpointViews,
	"visitors":               EndpointVisitors,
	"feedback/by-page":       EndpointFeedback,
	"searches":               EndpointSearches,
	"assistant/caller-stats": EndpointCallerStats,
	conversationsPath:        EndpointConversations,
	feedbackEntriesPath:      EndpointFeedbackEntries,
}

func matchRoute(path string) (route, bool) {
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(seg) < 4 || seg[2] == "" {
		return route{}, false
	}
	switch {
	case seg[0] == "v1" && seg[1] == "analytics":
		ep, ok := analyticsRoutes[strings.Join(seg[3:], "/")]
		return route{endpoint: ep, method: http.MethodGet, analytics: true, project: seg[2]}, ok
	case seg[0] == "v2" && seg[1] == "agent" && seg[3] == "job":
		r := route{project: seg[2]}
		switch {
		case len(seg) == 4:
			r.endpoint, r.method = EndpointCreateJob, http.MethodPost
		case len(seg) == 5 && seg[4] != "":
			r.endpoint, r.method, r.jobID = EndpointGetJob, http.MethodGet, seg[4]
		case len(seg) == 6 && seg[4] != "" && seg[5] == "message":
			r.endpoint, r.method, r.jobID = EndpointSendMessage, http.MethodPost, seg[4]
		default:
			return route{}, false
		}
		return r, true
	case seg[0] == "v1" && seg[1] == "workflow" && len(seg) == 5 && seg[3] != "" && seg[4] == "trigger":
		// The automation id is recorded as the request's JobID.
		return route{endpoint: EndpointTriggerAutomation, method: http.MethodPost, project: seg[2], jobID: seg[3]}, true
	}
	return route{}, false
}

type call struct {
	r     *http.Request
	rt    route
	key   KeySpec
	now   time.Time
	site  Site
	fault *Fault // paging faults (DuplicateAcrossPages etc.), never nil
}

// ServeHTTP checks route, method, front faults, auth, scope, project, validation, then the rate
// limit: only requests past validation use budget.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Endpoint: EndpointUnknown, Time: now}
	res := s.serve(r, now, &rec)
	if res == nil { // client went away during a latency fault
		rec.Status = StatusClientClosed
		s.record(rec)
		return
	}
	rec.Status = res.status
	// Recorded before the answer is written, or a counting test races the client.
	s.record(rec)
	res.write(w)
}

func (s *Server) serve(r *http.Request, now time.Time, rec *Request) *response {
	rt, ok := matchRoute(r.URL.Path)
	if !ok {
		return errorResponse(http.StatusNotFound, false, "Not found")
	}
	rec.Endpoint, rec.ProjectID, rec.JobID = rt.endpoint, rt.project, rt.jobID
	if r.Method != rt.method {
		res := errorResponse(http.StatusMethodNotAllowed, rt.analytics, "Method not allowed")
		res.header.Set("Allow", rt.method)
		return res
	}
	f := s.takeFault(rt.endpoint)
	if f != nil {
		if f.Arrived != nil {
			select {
			case f.Arrived <- rt.endpoint:
			default:
			}
		}
		if !waitLatency(r.Context(), f.Latency) {
			return nil
		}
		if res := f.early(rt); res != nil {
			return res
		}
	}
	c := &call{r: r, rt: rt, now: now, fault: cmp.Or(f, &Fault{})}
	res := s.authorize(c)
	rec.Org = c.key.Org // "" unless the key was found
	if res == nil {
		res = s.dispatch(c)
	}
	if f != nil {
		res = f.mangle(rt, res)
	}
	return res
}

func (s *Server) dispatch(c *call) *response {
	switch c.rt.endpoint {
	case EndpointCreateJob:
		return s.createJob(c)
	case EndpointGetJob:
		return s.getJob(c)
	case EndpointSendMessage:
		return s.sendMessage(c)
	case EndpointTriggerAutomation:
		return s.triggerAutomation(c)
	default:
		return s.analyticsEndpoint(c)
	}
}
