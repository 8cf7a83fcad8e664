package mockapi

import "time"

// A documentation gap that a merged pull request closes, for the demo's
// loop (alert → receiver → job → pull request → the share falling): from
// its hour on, the site's assistant gets Gap.PerHour conversations an
// hour, Gap.UnansweredPercent of them unanswered; once the pull request of
// a job created through the API (POST job, or an automation trigger) is
// merged, Options.MergeAfter after the job completed with it, the
// conversations from then on are unanswered Gap.FixedPercent of the time.
// A job's merge is derived from the clock as its status is, so a
// conversation's resolution never changes once it could have been read.

// Gap is a site's documentation gap (Site.Gap).
type Gap struct {
	From              time.Time // the hour it starts in
	PerHour           int       // conversations an hour from then on
	UnansweredPercent int       // 0 to 100, before the fix
	FixedPercent      int       // 0 to 100, after the fix
}

// DefaultUnansweredPercent is the share of a site's conversations that
// go unanswered where no Gap applies.
const DefaultUnansweredPercent = 18

// gapHour reports whether hour h lies in the site's gap.
func (s Site) gapHour(h int64) bool {
	return s.Gap != nil && h >= floorDiv(s.Gap.From.Unix(), 3600)
}

// unansweredPercent is the share of the conversations at ms (Unix
// milliseconds, in hour h) that go unanswered.
func (s Site) unansweredPercent(h, ms int64) uint64 {
	switch {
	case !s.gapHour(h):
		return DefaultUnansweredPercent
	case s.fixedAt != 0 && ms >= s.fixedAt:
		return uint64(s.Gap.FixedPercent)
	}
	return uint64(s.Gap.UnansweredPercent)
}

// withFix is site with the instant its gap was closed, as of now: the
// first merge of a pull request of a job created through the API in
// project. Called with s.mu held.
func (s *Server) withFix(project string, site Site, now time.Time) Site {
	if site.Gap == nil || s.mergeAfter <= 0 {
		return site
	}
	for _, j := range s.jobs[project] {
		if at, ok := s.mergedAt(j); ok && !at.After(now) && (site.fixedAt == 0 || at.UnixMilli() < site.fixedAt) {
			site.fixedAt = at.UnixMilli()
		}
	}
	return site
}

// mergedAt is when j's pull request is merged: MergeAfter after the job
// completed with one; none for a seeded job, a failed one, or one without
// a pull request.
func (s *Server) mergedAt(j *job) (time.Time, bool) {
	if j.seeded || s.mergeAfter <= 0 {
		return time.Time{}, false
	}
	end := j.runStart.Add(s.activeFor)
	if j.fail || j.noPR || (!j.failedAt.IsZero() && j.failedAt.Before(end)) {
		return time.Time{}, false
	}
	return end.Add(s.mergeAfter), true
}

// MergedAt is when the pull request of a job is merged (Options.MergeAfter
// after it completed with one), and whether it ever is.
func (s *Server) MergedAt(projectID, id string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[projectID][id]
	if !ok {
		return time.Time{}, false
	}
	return s.mergedAt(j)
}
