package mockapi

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Job statuses as the vendor spells them.
const (
	StatusActive    = "active"
	StatusCompleted = "completed"
	StatusArchived  = "archived"
	StatusFailed    = "failed"
)

// Model is the model name the mock reports for every job.
const Model = "claude-sonnet-4-5"

// timeLayout is the vendor's Node.js Date.toISOString: UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

// job's status is derived from the clock on every read, so no goroutine moves it along.
type job struct {
	id        string
	repo      string
	ref       *string
	model     string
	createdAt time.Time
	runStart  time.Time // creation or last follow-up message
	fail      bool      // this run ends failed
	noPR      bool      // this run completes without a pull request
	failedAt  time.Time // FailJob: the run failed at this instant
	pr        string    // link used once the run completes
	seeded    bool      // SeedJob: its pull request never closes a Site.Gap
}

// JobView is the job object as served.
type JobView struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	Source     JobSource `json:"source"`
	Model      string    `json:"model"`
	PRLink     *string   `json:"prLink"`
	CreatedAt  string    `json:"createdAt"`
	ArchivedAt *string   `json:"archivedAt"`
}

type JobSource struct {
	Repository string  `json:"repository"`
	Ref        *string `json:"ref"`
}

// view: active for JobActiveFor; then failed (prompt says "fail", or FailJob) or completed
// (with a prLink unless the prompt says "noop"); archived JobArchiveAfter later.
func (s *Server) view(j *job, now time.Time) JobView {
	v := JobView{ID: j.id, Source: JobSource{Repository: j.repo, Ref: j.ref}, Model: j.model,
		CreatedAt: j.createdAt.UTC().Format(timeLayout)}
	end := j.runStart.Add(s.activeFor)
	failed := j.fail
	if !j.failedAt.IsZero() && j.failedAt.Before(end) {
		end, failed = j.failedAt, true
	}
	if now.Before(end) {
		v.Status = StatusActive
		return v
	}
	v.Status = StatusCompleted
	if failed {
		v.Status = StatusFailed
	} else if !j.noPR {
		v.PRLink = ptr(j.pr)
	}
	if archived := end.Add(s.archiveAfter); !now.Before(archived) {
		v.Status = StatusArchived
		v.ArchivedAt = ptr(archived.UTC().Format(timeLayout))
	}
	return v
}

func hasWord(prompt, w string) bool {
	fields := strings.FieldsFunc(prompt, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return slices.ContainsFunc(fields, func(f string) bool { return strings.EqualFold(f, w) })
}

// JobSeed pre-creates a job (--demo); its status follows CreatedAt and the clock.
type JobSeed struct {
	ID         string    // "" = generated
	Prompt     string    // "fail" / "noop" words work as for created jobs
	CreatedAt  time.Time // zero = now
	Org        string    // for the repository URL; "" = the project's owner
	Repository string    // "" = https://github.com/<org>/<project>-docs; its pull requests' too
	NullRef    bool      // source.ref null instead of "main"
	Fail       bool      // end failed
	NoPR       bool      // complete without a pull request
}

// SeedJob stores a job for projectID, which need not be configured.
func (s *Server) SeedJob(projectID string, js JobSeed) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	org := cmp.Or(js.Org, s.ownerOf(projectID))
	created := js.CreatedAt
	if created.IsZero() {
		created = s.clock.Now()
	}
	j := s.newJobLocked(projectID, org, js.Prompt, created)
	if js.ID != "" {
		delete(s.jobs[projectID], j.id)
		j.id = js.ID
		s.jobs[projectID][j.id] = j
	}
	if js.Repository != "" {
		j.pr = js.Repository + strings.TrimPrefix(j.pr, j.repo)
		j.repo = js.Repository
	}
	if js.NullRef {
		j.ref = nil
	}
	j.fail = j.fail || js.Fail
	j.noPR = j.noPR || js.NoPR
	j.seeded = true
	return j.id
}

// FailJob makes an active job fail now; it is an error if the job is not active.
func (s *Server) FailJob(projectID, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[projectID][id]
	if j == nil {
		return fmt.Errorf("mockapi: job %q not found in project %q", id, projectID)
	}
	now := s.clock.Now()
	if st := s.view(j, now).Status; st != StatusActive {
		return fmt.Errorf("mockapi: job %q is %s, not active", id, st)
	}
	j.failedAt = now
	return nil
}

// Job returns the job as GET would serve it now.
func (s *Server) Job(projectID, id string) (JobView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[projectID][id]
	if j == nil {
		return JobView{}, false
	}
	return s.view(j, s.clock.Now()), true
}

func (s *Server) ownerOf(projectID string) string {
	best := ""
	for _, k := range s.keys {
		if slices.Contains(k.ProjectIDs, projectID) && (best == "" || k.Org < best) {
			best = k.Org
		}
	}
	return cmp.Or(best, "acme")
}

func (s *Server) newJobLocked(project, org, prompt string, now time.Time) *job {
	s.jobSeq++
	n := s.jobSeq
	owner := strings.ToLower(strings.ReplaceAll(org, " ", "-"))
	repo := "https://github.com/" + owner + "/" + project + "-docs"
	j := &job{
		id:        fmt.Sprintf("job_%016x", mix64(n)),
		repo:      repo,
		model:     Model,
		createdAt: now,
		runStart:  now,
		fail:      hasWord(prompt, "fail"),
		noPR:      hasWord(prompt, "noop"),
		pr:        fmt.Sprintf("%s/pull/%d", repo, 100+n),
	}
	if n%4 != 0 { // every fourth job has no branch, to exercise ref: null
		j.ref = ptr("main")
	}
	if s.jobs[project] == nil {
		s.jobs[project] = map[string]*job{}
	}
	s.jobs[project][j.id] = j
	return j
}

func readPrompt(r *http.Request) (string, *response) {
	var body struct {
		Prompt *string `json:"prompt"`
	}
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 1<<20))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return "", errorResponse(http.StatusRequestEntityTooLarge, false, "Request body too large")
		}
		return "", errorResponse(http.StatusBadRequest, false, "Could not read request body")
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return "", errorResponse(http.StatusBadRequest, false, "Invalid JSON body")
	}
	if body.Prompt == nil || *body.Prompt == "" {
		return "", errorResponse(http.StatusBadRequest, false, "prompt is required and must be at least 1 character")
	}
	return *body.Prompt, nil
}

func (s *Server) createJob(c *call) *response {
	prompt, bad := readPrompt(c.r)
	if bad != nil {
		return bad
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok, wait := s.agent.admit(c.rt.project, s.agentCap, c.now); !ok {
		return s.rateLimited(false, wait)
	}
	j := s.newJobLocked(c.rt.project, c.key.Org, prompt, c.now)
	return jsonResponse(http.StatusCreated, s.view(j, c.now))
}

func (s *Server) getJob(c *call) *response {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[c.rt.project][c.rt.jobID]
	if j == nil {
		return errorResponse(http.StatusNotFound, false, "Job not found")
	}
	return jsonResponse(http.StatusOK, s.view(j, c.now))
}

// sendMessage makes the job active again; an archived one takes none (400), an assumption:
// the vendor documents no such case.
func (s *Server) sendMessage(c *call) *response {
	prompt, bad := readPrompt(c.r)
	if bad != nil {
		return bad
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[c.rt.project][c.rt.jobID]
	if j == nil {
		return errorResponse(http.StatusNotFound, false, "Job not found")
	}
	if s.view(j, c.now).Status == StatusArchived {
		return errorResponse(http.StatusBadRequest, false, "Job is archived")
	}
	if ok, wait := s.agent.admit(c.rt.project, s.agentCap, c.now); !ok {
		return s.rateLimited(false, wait)
	}
	j.runStart, j.failedAt = c.now, time.Time{}
	j.fail, j.noPR = hasWord(prompt, "fail"), hasWord(prompt, "noop")
	return jsonResponse(http.StatusOK, s.view(j, c.now))
}
