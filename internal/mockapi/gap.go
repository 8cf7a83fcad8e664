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

// gapPercent is the share, in percent, of the gap's conversations at ms
// (Unix milliseconds) that go unanswered.
func (s Site) gapPercent(ms int64) int {
	if s.fixedAt != 0 && ms >= s.fixedAt {
		return s.Gap.FixedPercent
	}
	return s.Gap.UnansweredPercent
}

// spreadUnanswered marks the unanswered among cs, the conversations of
// gap hour h oldest first, as evenly as their percents allow: each adds
// its percent to a running sum kept from the gap's first hour, and is
// unanswered when the sum passes a multiple of 100. Any run of them then
// holds its share rounded down or up, so that the few conversations of a
// refresh show the gap's share (or the fix's), not a draw that may cross
// the demo alert's threshold back and forth.
func (s Site) spreadUnanswered(h int64, cs []Conversation) {
	sum := s.gapSumBefore(h)
	for i := range cs {
		p := int64(s.gapPercent(cs[i].at.UnixMilli()))
		if (sum+p)/100 > sum/100 {
			s.unanswer(&cs[i])
		}
		sum += p
	}
}

// gapSumBefore is the running sum of spreadUnanswered at the start of gap
// hour h: a phase drawn from the seed, plus the percents of the
// conversations of the gap's hours before h.
func (s Site) gapSumBefore(h int64) int64 {
	first := floorDiv(s.Gap.From.Unix(), 3600)
	sum := int64(hash3(uint64(s.Seed), uint64(first), tagGapPhase) % 100)
	for j := first; j < h; j++ {
		n, start := int64(s.hourCount(j)), j*3_600_000
		switch {
		case s.fixedAt == 0 || start+3_600_000 <= s.fixedAt:
			sum += n * int64(s.Gap.UnansweredPercent)
		case start >= s.fixedAt:
			sum += n * int64(s.Gap.FixedPercent)
		default: // the hour of the merge
			base := hash3(uint64(s.Seed), uint64(j), tagConv)
			for k := range n {
				sum += int64(s.gapPercent(start + int64(mix64(base+uint64(k))%3_600_000)))
			}
		}
	}
	return sum
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
