package receiver

// The state file keeps a retry, the other Alertmanager of an HA pair or a restart from acting twice, and holds
// cooldowns and caps. One process owns it (a flock on STATE.owner); read as untrusted input, its checksum
// and values are checked, and a bad file is moved aside.

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

const (
	maxStateBytes = 8 << 20
	// maxGroups: each group is older than any cooldown long before 10 000 have fired.
	maxGroups    = 10_000
	maxJobs      = 1000
	stateVersion = 1
	dayLayout    = time.DateOnly
)

// Group entry states: an intent found at start (stopped mid-request) becomes unknown, never tried again.
const (
	entryIntent  = "intent"
	entryActed   = "acted"
	entryDryRun  = "dry_run"
	entryUnknown = "unknown"
)

type stateData struct {
	Version int `json:"version"`
	// Groups are keyed by the SHA-256 of Alertmanager's group key, which holds label values.
	Groups []groupEntry `json:"groups"`
	// LastAction is each route's last action, for its cooldown.
	LastAction  map[string]time.Time `json:"last_action"`
	ProjectLast map[string]time.Time `json:"project_last"`
	// Daily is each project's count of actions on one UTC day.
	Daily map[string]dayCount `json:"daily"`
	// Jobs are the newest maxJobs jobs and runs started, for the series naming each one's route.
	Jobs []jobEntry `json:"jobs,omitempty"`
}

type jobEntry struct {
	Route   string    `json:"route"`
	Project string    `json:"project"`
	JobID   string    `json:"job_id,omitempty"`
	RunID   string    `json:"run_id,omitempty"`
	At      time.Time `json:"at"`
	// PRLink is the job's pull request, once known; Done ends following.
	PRLink string `json:"pr_link,omitempty"`
	Done   bool   `json:"done,omitempty"`
}

type groupEntry struct {
	Route string    `json:"route"`
	Group string    `json:"group"`
	State string    `json:"state"`
	At    time.Time `json:"at"`
	ID    string    `json:"id,omitempty"` // job id or automation run id
}

type dayCount struct {
	Day   string `json:"day"`
	Count int    `json:"count"`
}

// The state changes below are the only ones; the receiver's lock is held. A reservation is what an intent
// changed: settled as acted or unknown, or undone when Mintlify certainly did not act.
type reservation struct {
	route, project, group          string
	at, lastRoute, lastProject     time.Time
	daily, counted                 dayCount
	hadRoute, hadProject, hadDaily bool
}

func (d *stateData) reserve(route, project, group string, now time.Time) reservation {
	res := reservation{route: route, project: project, group: group, at: now}
	res.lastRoute, res.hadRoute = d.LastAction[route]
	res.lastProject, res.hadProject = d.ProjectLast[project]
	res.daily, res.hadDaily = d.Daily[project]
	res.counted = dayCount{Day: now.UTC().Format(dayLayout), Count: d.usedToday(project, now) + 1}
	d.put(groupEntry{Route: route, Group: group, State: entryIntent, At: now})
	d.LastAction[route] = now
	d.ProjectLast[project] = now
	d.Daily[project] = res.counted
	return res
}

// undo takes back what res changed and only that: an action reserved since keeps its count and times
// (a dry run's entry res replaced stays gone).
func (d *stateData) undo(res reservation) {
	if i := d.find(res.route, res.group); i >= 0 {
		d.Groups = slices.Delete(d.Groups, i, i+1)
	}
	if d.LastAction[res.route].Equal(res.at) {
		restore(d.LastAction, res.route, res.lastRoute, res.hadRoute)
	}
	switch c := d.Daily[res.project]; {
	case c == res.counted:
		restore(d.ProjectLast, res.project, res.lastProject, res.hadProject)
		restore(d.Daily, res.project, res.daily, res.hadDaily)
	case c.Day == res.counted.Day && c.Count > 0:
		c.Count--
		d.Daily[res.project] = c
	}
}

func restore[V any](m map[string]V, key string, v V, had bool) {
	if had {
		m[key] = v
	} else {
		delete(m, key)
	}
}

// acted keeps only ids the state's check admits (the audit log has them all).
func (d *stateData) acted(res reservation, jobID, runID string, at time.Time) {
	if mintlify.CheckID(jobID) != nil {
		jobID = ""
	}
	if mintlify.CheckID(runID) != nil {
		runID = ""
	}
	if i := d.find(res.route, res.group); i >= 0 {
		d.Groups[i].State, d.Groups[i].ID = entryActed, cmp.Or(jobID, runID)
	}
	if jobID != "" || runID != "" {
		d.Jobs = append(d.Jobs, jobEntry{Route: res.route, Project: res.project, JobID: jobID, RunID: runID, At: at})
	}
}

func (d *stateData) unknown(res reservation) {
	if i := d.find(res.route, res.group); i >= 0 {
		d.Groups[i].State = entryUnknown
	}
}

func (d *stateData) dryRun(route, group string, now time.Time) {
	d.put(groupEntry{Route: route, Group: group, State: entryDryRun, At: now})
}

// resolve forgets the group's entry, unless a request for it is under way; it reports a change.
func (d *stateData) resolve(route, group string) bool {
	i := d.find(route, group)
	if i < 0 || d.Groups[i].State == entryIntent {
		return false
	}
	d.Groups = slices.Delete(d.Groups, i, i+1)
	return true
}

// unknownIntents turns the intents found at start into unknown entries and returns them.
func (d *stateData) unknownIntents() []groupEntry {
	var out []groupEntry
	for i := range d.Groups {
		if g := &d.Groups[i]; g.State == entryIntent {
			g.State = entryUnknown
			out = append(out, *g)
		}
	}
	return out
}

// toFollow ends following the jobs past followFor and returns up to followPerRound of the others.
func (d *stateData) toFollow(now time.Time) []jobEntry {
	var out []jobEntry
	for i := range d.Jobs {
		switch j := &d.Jobs[i]; {
		case j.Done || j.JobID == "":
		case now.Sub(j.At) > followFor:
			j.Done = true
		case len(out) < followPerRound:
			out = append(out, *j)
		}
	}
	return out
}

// followed ends following the job, with its pull request's link if any, and returns the entries it ended.
func (d *stateData) followed(project, jobID, link string) []jobEntry {
	var out []jobEntry
	for i := range d.Jobs {
		j := &d.Jobs[i]
		if j.Project == project && j.JobID == jobID && !j.Done {
			j.Done, j.PRLink = true, link
			out = append(out, *j)
		}
	}
	return out
}

// put replaces the route's entry for the group, if any, by e at the end (entries are kept in time order).
func (d *stateData) put(e groupEntry) {
	if i := d.find(e.Route, e.Group); i >= 0 {
		d.Groups = slices.Delete(d.Groups, i, i+1)
	}
	d.Groups = append(d.Groups, e)
}

func (d *stateData) find(route, group string) int {
	return slices.IndexFunc(d.Groups, func(g groupEntry) bool { return g.Route == route && g.Group == group })
}

func (d *stateData) usedToday(project string, now time.Time) int {
	c := d.Daily[project]
	if c.Day != now.UTC().Format(dayLayout) {
		return 0
	}
	return c.Count
}

var hexRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// check refuses anything this version would not have written.
func (d *stateData) check(now time.Time) error {
	if d.Version != stateVersion {
		return fmt.Errorf("version %d, want %d", d.Version, stateVersion)
	}
	if len(d.Groups) > maxGroups || len(d.LastAction) > MaxRoutes*10 || len(d.Daily) > MaxRoutes*10 || len(d.ProjectLast) > MaxRoutes*10 {
		return errors.New("more entries than the receiver keeps")
	}
	if err := cmp.Or(d.checkGroups(now), d.checkJobs(now)); err != nil {
		return err
	}
	for r, t := range d.LastAction {
		if !nameRE.MatchString(r) {
			return errors.New("last_action: bad route name")
		}
		if err := checkTime("last_action", t, now); err != nil {
			return err
		}
	}
	for p, t := range d.ProjectLast {
		if mintlify.CheckID(p) != nil {
			return errors.New("project_last: bad project id")
		}
		if err := checkTime("project_last", t, now); err != nil {
			return err
		}
	}
	for p, c := range d.Daily {
		if _, err := time.Parse(dayLayout, c.Day); mintlify.CheckID(p) != nil || err != nil || c.Count < 0 || c.Count > 1000 {
			return errors.New("daily: bad project, day or count")
		}
	}
	return nil
}

func (d *stateData) checkGroups(now time.Time) error {
	for i, g := range d.Groups {
		switch {
		case !nameRE.MatchString(g.Route), !hexRE.MatchString(g.Group):
			return fmt.Errorf("groups[%d]: bad route or group", i)
		case g.State != entryIntent && g.State != entryActed && g.State != entryDryRun && g.State != entryUnknown:
			return fmt.Errorf("groups[%d]: unknown state", i)
		case g.ID != "" && mintlify.CheckID(g.ID) != nil:
			return fmt.Errorf("groups[%d]: bad id", i)
		}
		if err := checkTime(fmt.Sprintf("groups[%d]", i), g.At, now); err != nil {
			return err
		}
	}
	return nil
}

func (d *stateData) checkJobs(now time.Time) error {
	if len(d.Jobs) > maxJobs {
		return errors.New("more jobs than the receiver keeps")
	}
	for i, j := range d.Jobs {
		switch {
		case !nameRE.MatchString(j.Route), mintlify.CheckID(j.Project) != nil:
			return fmt.Errorf("jobs[%d]: bad route or project", i)
		case j.JobID == "" && j.RunID == "",
			j.JobID != "" && mintlify.CheckID(j.JobID) != nil,
			j.RunID != "" && mintlify.CheckID(j.RunID) != nil:
			return fmt.Errorf("jobs[%d]: bad job or run id", i)
		case j.PRLink != "" && !mintlify.ValidPRLink(j.PRLink):
			return fmt.Errorf("jobs[%d]: bad pull request link", i)
		}
		if err := checkTime(fmt.Sprintf("jobs[%d]", i), j.At, now); err != nil {
			return err
		}
	}
	return nil
}

func checkTime(what string, t, now time.Time) error {
	if t.IsZero() || t.After(now.Add(24*time.Hour)) || t.Year() < 2000 {
		return fmt.Errorf("%s: time %s out of range", what, t.Format(time.RFC3339))
	}
	return nil
}

// store: callers hold the receiver's lock.
type store struct {
	path  string
	owner *os.File
	d     stateData
	write func(sealed []byte) error // to path; in memory in the tests of decisions
	// lost says why the state found at start was unusable, aside where it went.
	lost, aside string
}

// openStore: a state unusable, or missing after the receiver ran, counts every route as having acted now,
// so a lost state never lets the receiver act again on what it may have acted on.
func openStore(path, auditPath string, now time.Time, routes []*Route) (*store, error) {
	// A link there could make root read, move or replace a file it was never given.
	if err := safefile.CheckTarget(path); err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	ranBefore := exists(path+".owner") || exists(auditPath) || exists(auditPath+".1")
	owner, err := safefile.Claim(path + ".owner")
	var held *safefile.ClaimError
	switch {
	case errors.As(err, &held) && held.Deleted:
		return nil, fmt.Errorf("state file %s is in use by another receiver (%v): stop it first; give each receiver its own --storage.path", path, held)
	case errors.As(err, &held):
		return nil, fmt.Errorf("state file %s is in use by another receiver (%v): give each receiver its own --storage.path", path, held)
	case err != nil:
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	s := newStore(func(b []byte) error { return safefile.Write(path, b) })
	s.path, s.owner = path, owner
	data, err := safefile.Read(path, "receiver state file", maxStateBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !ranBefore:
		err = s.save() // a restart must find it
	case errors.Is(err, fs.ErrNotExist):
		s.lost = "the state file is missing, but its owner file or the audit log shows the receiver ran before"
		err = s.startCooldowns(now, routes)
	case err == nil:
		if err = decodeState(data, &s.d, now); err != nil {
			err = s.moveAside(err, now, routes)
		}
	case safefile.Curable(err):
		err = s.moveAside(err, now, routes)
	}
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

func (s *store) moveAside(why error, now time.Time, routes []*Route) error {
	aside, err := safefile.MoveAside(s.path, now)
	if err != nil {
		return fmt.Errorf("state file %s cannot be used (%v) nor moved aside: %w", s.path, why, err)
	}
	s.lost, s.aside = why.Error(), aside
	return s.startCooldowns(now, routes)
}

func (s *store) startCooldowns(now time.Time, routes []*Route) error {
	s.d = emptyState()
	for _, r := range routes {
		s.d.LastAction[r.Name] = now
	}
	return s.save()
}

// stateFile's SHA-256 finds an edit that leaves valid values.
type stateFile struct {
	SHA256 string          `json:"sha256"`
	State  json.RawMessage `json:"state"`
}

func decodeState(data []byte, d *stateData, now time.Time) error {
	var f stateFile
	if err := decodeStrict(data, &f); err != nil {
		return fmt.Errorf("not a state file with its checksum: %w", err)
	}
	if fmt.Sprintf("%x", sha256.Sum256(f.State)) != f.SHA256 {
		return errors.New("checksum mismatch: the file was changed outside the receiver")
	}
	if err := decodeStrict(f.State, d); err != nil {
		return err
	}
	if d.LastAction == nil {
		d.LastAction = map[string]time.Time{}
	}
	if d.ProjectLast == nil {
		d.ProjectLast = map[string]time.Time{}
	}
	if d.Daily == nil {
		d.Daily = map[string]dayCount{}
	}
	return d.check(now)
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data")
	}
	return nil
}

func newStore(write func([]byte) error) *store {
	return &store{write: write, d: emptyState()}
}

func emptyState() stateData {
	return stateData{Version: stateVersion, LastAction: map[string]time.Time{}, ProjectLast: map[string]time.Time{}, Daily: map[string]dayCount{}}
}

func (s *store) save() error {
	// Appended in time order: the oldest go first.
	s.d.Groups = s.d.Groups[max(len(s.d.Groups)-maxGroups, 0):]
	s.d.Jobs = s.d.Jobs[max(len(s.d.Jobs)-maxJobs, 0):]
	b, err := json.Marshal(&s.d)
	if err != nil {
		return err
	}
	return s.write(sealState(b))
}

func sealState(state []byte) []byte {
	return fmt.Appendf(nil, `{"sha256":"%x","state":%s}`+"\n", sha256.Sum256(state), state)
}

func (s *store) close() {
	_ = safefile.Unlock(s.owner)
	s.owner.Close()
}

func groupHash(groupKey string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(groupKey)))
}
