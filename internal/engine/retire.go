package engine

import "time"

// A unit a reload leaves out is retired, not forgotten: its state is kept for RetiredKeep, so one turned on
// again soon starts from its sealed days.

// RetiredKeep covers a collector turned off and on by mistake or for a trial, without carrying a month walk
// (megabytes) for long; sealed days are of no use past their month anyway.
const RetiredKeep = 7 * 24 * time.Hour

func (s *unitState) use() {
	if !s.retired.IsZero() {
		s.retired = time.Time{}
		s.changes++
	}
}

// retire marks unused states retired at now and forgets those retired for RetiredKeep. The caller holds storeMu.
func (e *Engine) retire(live map[unitID]bool, now time.Time) {
	if e.saved != nil {
		for id := range e.saved.units {
			if _, ok := e.states[id]; !ok && !live[id] {
				e.states[id] = e.saved.restoreUnit(id)
			}
		}
	}
	for id, s := range e.states {
		if live[id] {
			continue
		}
		s.mu.Lock()
		if s.retired.IsZero() {
			s.retired = now
			s.changes++
		}
		s.mu.Unlock()
	}
	if e.forgetRetired(now) {
		e.forgot = true // for the next save
	}
}

// forgetRetired reports removals since its last report, so the state file is written again.
func (e *Engine) forgetRetired(now time.Time) bool {
	for id, s := range e.states {
		s.mu.Lock()
		old := !s.retired.IsZero() && !now.Before(s.retired.Add(RetiredKeep))
		s.mu.Unlock()
		if old {
			delete(e.states, id)
			e.forgot = true
		}
	}
	forgot := e.forgot
	e.forgot = false
	return forgot
}
