package mockapi

import "time"

// A Gap makes conversations from its hour on unanswered at UnansweredPercent until an API job's
// pull request is merged (MergeAfter after it completed), then at FixedPercent: the demo's loop.
// A merge is derived from the clock, so a read conversation's resolution never changes.

// Gap is a site's documentation gap (Site.Gap).
type Gap struct {
	From              time.Time // the hour it starts in
	PerHour           int       // conversations an hour from then on
	UnansweredPercent int       // 0 to 100, before the fix
	FixedPercent      int       // 0 to 100, after the fix
}

// DefaultUnansweredPercent applies where no Gap does.
const DefaultUnansweredPercent = 18

func (s Site) gapHour(h int64) bool {
	return s.Gap != nil && h >= floorDiv(s.Gap.From.Unix(), 3600)
}

func (s Site) unansweredPercent(h, ms int64) uint64 {
	switch {
	case !s.gapHour(h):
		return DefaultUnansweredPercent
	case s.fixedAt != 0 && ms >= s.fixedAt:
		return uint64(s.Gap.FixedPercent)
	}
	return uint64(s.Gap.UnansweredPercent)
}

// withFix sets when the site's gap closed as of now. Called with s.mu held.
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

// mergedAt: a seeded job, a failed one or one without a pull request is never merged.
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

// MergedAt is when a job's pull request is merged, and whether it ever is.
func (s *Server) MergedAt(projectID, id string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[projectID][id]
	if !ok {
		return time.Time{}, false
	}
	return s.mergedAt(j)
}
