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
	// Pages: half its conversations start on the site's first Pages pages, as a gap is about a few
	// pages, so each refresh brings those pages new conversations; 0: spread over all.
	Pages int
}

// DefaultUnansweredPercent applies where no Gap does.
const DefaultUnansweredPercent = 18

func (s Site) gapHour(h int64) bool {
	return s.Gap != nil && h >= floorDiv(s.Gap.From.Unix(), 3600)
}

// gapPercent is the unanswered share, in percent, at ms (Unix milliseconds).
func (s Site) gapPercent(ms int64) int {
	if s.fixedAt != 0 && ms >= s.fixedAt {
		return s.Gap.FixedPercent
	}
	return s.Gap.UnansweredPercent
}

// spreadUnanswered marks cs (gap hour h, oldest first) unanswered each time a running sum of
// percents passes a multiple of 100: a refresh's few conversations then show the share, not a
// random draw that crosses the demo alert's threshold back and forth.
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
