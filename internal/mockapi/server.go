// Package mockapi is a simulated Mintlify admin REST API: an http.Handler
// that answers the analytics and v2 agent-job operations the way the vendor
// documents them, with deterministic synthetic data, authentication, the
// documented rate limits, a clock-driven job lifecycle and injectable faults.
//
// It exists so unit tests, benchmarks, the exporter's --demo mode and the
// end-to-end suite never need the internet or an account. It deliberately
// shares no code with the API client (internal/mintlify): if both were built
// from the same structs, a misunderstanding of the vendor's shapes would be
// invisible. The contract test in this package pins the mock to fixtures
// derived from the vendor's OpenAPI files instead.
package mockapi

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
)

// Scope is what an admin key may do. The vendor issues read- and
// write-scoped keys; GET needs read, POST needs write.
type Scope int

const (
	// ReadOnly keys may only GET; a POST gets 403.
	ReadOnly Scope = iota
	// ReadWrite keys may do everything.
	ReadWrite
)

// KeySpec is one admin API key the mock accepts.
type KeySpec struct {
	Key   string // must start with "mint_"; "mint_dsc_" and "mint_us_" never work
	Org   string // keys belong to an organization; rate limits are per org
	Scope Scope
	// ProjectIDs lists the projects this key's org owns; empty means any.
	ProjectIDs []string
}

// Options configure a Server. Zero values pick the documented defaults.
type Options struct {
	Clock Clock // default RealClock
	Keys  []KeySpec
	// Projects maps project id to its synthetic site. A request for a
	// project not in the map gets 404.
	Projects map[string]Site
	// AnalyticsBudgetPerHour is requests per org per sliding hour, shared by
	// every analytics endpoint. 0 = 100 (documented); negative = unlimited.
	AnalyticsBudgetPerHour int
	// AgentBudgetPerHour is create-job + send-message calls per project per
	// sliding hour. 0 = 100 (documented); negative = unlimited.
	AgentBudgetPerHour int
	// RetryAfter makes 429 answers carry Retry-After (seconds until a slot
	// frees). The vendor does not promise the header, so test both ways.
	RetryAfter bool
	// JobActiveFor is how long a job (or a follow-up message) stays active
	// before it completes or fails. Default 2m.
	JobActiveFor time.Duration
	// JobArchiveAfter is how long after finishing a job becomes archived.
	// Default 1h.
	JobArchiveAfter time.Duration
	// MergeAfter is how long after a job created through the API
	// completes with a pull request that pull request is merged, which
	// closes its project's Site.Gap (gap.go). 0: never merged.
	MergeAfter time.Duration
	// MaxPageSize caps limit for views and visitors. Default 250.
	MaxPageSize int
	// RefuseFutureDates answers an analytics request whose dateTo lies
	// after the server's clock with 400. The vendor does not say whether
	// a future dateTo is accepted; this is the strict reading.
	RefuseFutureDates bool
}

// Endpoint names recorded in Request.Endpoint and matched by Fault.Endpoint.
const (
	EndpointViews       = "views"
	EndpointVisitors    = kind.Visitors
	EndpointFeedback    = "feedback_by_page"
	EndpointSearches    = kind.Searches
	EndpointCallerStats = "caller_stats"
	// EndpointConversations and EndpointFeedbackEntries are the list
	// endpoints assistant and feedback.
	EndpointConversations   = kind.Conversations
	EndpointFeedbackEntries = "feedback_entries"
	EndpointCreateJob       = "create_job"
	EndpointGetJob          = "get_job"
	EndpointSendMessage     = "send_message"
	EndpointUnknown         = "unknown" // no route matched
)

// StatusClientClosed is recorded (never sent) when the client went away
// while a Latency fault was delaying the answer, as nginx logs it.
const StatusClientClosed = 499

// Request is one recorded request, for assertions such as "the exporter
// made exactly 40 analytics calls".
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

// maxRecorded bounds the request log so a long --demo run does not grow
// without limit; the oldest entries are dropped.
const maxRecorded = 100_000

// Server is the simulated API. It implements http.Handler and is safe for
// concurrent use; all setters may be called while it serves.
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
		clock:        opts.Clock,
		keys:         map[string]KeySpec{},
		analyticsCap: opts.AnalyticsBudgetPerHour,
		agentCap:     opts.AgentBudgetPerHour,
		retryAfter:   opts.RetryAfter,
		activeFor:    opts.JobActiveFor,
		archiveAfter: opts.JobArchiveAfter,
		mergeAfter:   opts.MergeAfter,
		maxPage:      opts.MaxPageSize,
		refuseFuture: opts.RefuseFutureDates,
		projects:     map[string]Site{},
		faults:       map[string]*faultState{},
		jobs:         map[string]map[string]*job{},
	}
	if s.clock == nil {
		s.clock = RealClock{}
	}
	if s.analyticsCap == 0 {
		s.analyticsCap = 100
	}
	if s.agentCap == 0 {
		s.agentCap = 100
	}
	if s.activeFor <= 0 {
		s.activeFor = 2 * time.Minute
	}
	if s.archiveAfter <= 0 {
		s.archiveAfter = time.Hour
	}
	if s.maxPage <= 0 {
		s.maxPage = 250
	}
	for _, k := range opts.Keys {
		k.ProjectIDs = append([]string(nil), k.ProjectIDs...)
		s.keys[k.Key] = k
	}
	for id, site := range opts.Projects {
		s.projects[id] = site
	}
	s.analytics = newWindow(time.Hour)
	s.agent = newWindow(time.Hour)
	return s
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

// URL is the base URL to give the client, e.g. "http://127.0.0.1:41234".
func (r *Running) URL() string { return r.url }

// Close stops listening and drops open connections (in-flight Latency
// faults end because their request contexts are cancelled).
func (r *Running) Close() error {
	if err := r.hs.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// SetPaths changes how many paths a project's site has (creating the
// project with seed 0 if unknown), e.g. to test a site that grows.
func (s *Server) SetPaths(projectID string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	site := s.projects[projectID]
	site.Paths = n
	s.projects[projectID] = site
}

// SetRefuseFutureDates switches Options.RefuseFutureDates while serving.
func (s *Server) SetRefuseFutureDates(refuse bool) {
	s.mu.Lock()
	s.refuseFuture = refuse
	s.mu.Unlock()
}

// SetSite adds or replaces a project's site.
func (s *Server) SetSite(projectID string, site Site) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projects[projectID] = site
}

// Site returns a project's site as the server currently sees it.
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

// CountRequests counts logged requests for which filter returns true (nil
// counts all).
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

// MostInAnyHour is the most requests received within any one-hour span,
// other than those to the endpoints skipped.
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

// ResetRequests empties the request log (budgets and jobs are untouched).
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

// route is what the URL path resolved to.
type route struct {
	endpoint  string
	method    string // the only method allowed
	analytics bool   // error bodies use the analytics shape
	project   string
	jobID     string
}

// analyticsRoutes maps the endpoint path of each collector kind (the
// table of internal/kind) to the name its requests are recorded under.
var analyticsRoutes = func() map[string]string {
	names := map[string]string{
		kind.PageViews:       EndpointViews,
		kind.Visitors:        EndpointVisitors,
		kind.Feedback:        EndpointFeedback,
		kind.Searches:        EndpointSearches,
		kind.Assistant:       EndpointCallerStats,
		kind.Conversations:   EndpointConversations,
		kind.FeedbackBacklog: EndpointFeedbackEntries,
	}
	routes := map[string]string{}
	for _, k := range kind.All {
		if name, ok := names[k.Name]; ok {
			routes[k.Endpoint] = name
		}
	}
	// The list endpoints, served before the kinds that read them exist.
	routes[conversationsPath] = EndpointConversations
	routes[feedbackEntriesPath] = EndpointFeedbackEntries
	return routes
}()

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
	case seg[0] == "v1" && seg[1] == "workflow":
		return matchAutomation(seg)
	}
	return route{}, false
}

// call is one request in flight, passed to the endpoint handlers.
type call struct {
	r     *http.Request
	rt    route
	key   KeySpec
	now   time.Time
	site  Site
	fault *Fault // paging faults (DuplicateAcrossPages etc.), may be nil
}

// ServeHTTP answers one request. The order of checks is: route (404),
// method (405), faults that model trouble in front of the application
// (latency, status, HTML), authentication (401), scope (403), project
// existence (404) and ownership (403), then the endpoint's own validation
// (400), rate limit (429) and answer. Only requests that get past validation
// consume rate-limit budget: 400/401/403/404 and 429 answers are free, as is
// anything a Status fault answered.
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
	// Recorded before the answer is written: a client that has read the
	// answer must find its request in the log, or counting tests race.
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
	c := &call{r: r, rt: rt, now: now, fault: f}
	res := s.authorize(c)
	if res == nil {
		rec.Org = c.key.Org
		res = s.dispatch(c)
	} else if c.key.Key != "" {
		rec.Org = c.key.Org
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
