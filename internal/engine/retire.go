package engine

import "time"

// A unit that a reload leaves out (its collector turned off, its project
// removed) is retired rather than forgotten: its state stays in the store
// and in the state file for RetiredKeep, so that a unit turned on again
// within that time (a configuration tried and taken back, a collector
// paused for a few days) starts from its sealed days and spends only
// what changed meanwhile. A unit of the state file that the first
// configuration does not use is retired the same way. After RetiredKeep,
// its state leaves the store and the state file; turned on again, it
// starts afresh.

// RetiredKeep is how long the state of a unit no configuration uses is
// kept (docs/troubleshooting.md). A week covers a collector turned off and
// on again by mistake or for a trial, while the state file does not carry
// for long the data of a collector turned off for good (a month walk of
// page views can be megabytes). Longer would help little: the sealed days
// of a month are of use until the month ends.
const RetiredKeep = 7 * 24 * time.Hour

// use marks s used by the config being adopted. The caller holds s.mu.
func (s *unitState) use() {
	if !s.retired.IsZero() {
		s.retired = time.Time{}
		s.changes++
	}
}

// retire marks the states of the store and of the state file that no
// unit of the config uses (not in live) retired at now, unless they were
// already, and forgets those retired for RetiredKeep. The caller holds
// storeMu.
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

// forgetRetired removes from the store the states retired for
// RetiredKeep or longer. It reports whether it, or a call since the last
// report, removed any: the state file is then written again. The caller
// holds storeMu.
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
