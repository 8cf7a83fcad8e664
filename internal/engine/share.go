package engine

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
)

// How a key's hour is shared (docs/budget.md): each enabled collector gets a rate, its weight's share of the limit
// but no more than it can use; the rest goes to the others by weight. A collector may spend its rate in any sliding
// hour, so a large walk spreads over hours while every other collector still gets its share. The least served collector
// goes first, then the most overdue unit; one stopped mid-refresh is due again behind those due before.

type collectorShare struct {
	cost   int     // requests a full refresh of the collector's units costs
	demand float64 // requests an hour it can use at most: a refresh every min_refresh_interval
	weight float64
	rate   float64 // requests an hour it gets
}

func (s *collectorShare) allowance() int { return max(int(math.Ceil(s.rate-1e-9)), 1) }

func (s *collectorShare) interval() time.Duration {
	if s.rate <= 0 {
		return budget.Period
	}
	return time.Duration(float64(budget.Period) * float64(max(s.cost, 1)) / s.rate)
}

func (k *keyState) shares() map[string]*collectorShare {
	now := k.org.clock.Now()
	out := map[string]*collectorShare{}
	for _, u := range k.units {
		s, ok := out[u.collector.Name]
		if !ok {
			s = &collectorShare{weight: k.weights.Of(u.collector.Name)}
			out[u.collector.Name] = s
		}
		c := u.fullCost()
		s.cost += c
		if every := u.demandPeriod(now); every > 0 {
			s.demand += float64(max(c, 1)) * float64(budget.Period) / float64(every)
		} else {
			s.demand = math.Inf(1)
		}
	}
	fill(out, float64(k.limit))
	return out
}

// demandPeriod: a unit backing off uses a refresh only at its retry; its unused share goes to the other collectors.
func (u *unit) demandPeriod(now time.Time) time.Duration {
	u.state.mu.Lock()
	h := u.state.health
	u.state.mu.Unlock()
	if h.Failed && h.NextRefresh.After(now) {
		return max(h.NextRefresh.Sub(now), u.timing.minInterval)
	}
	return u.timing.minInterval
}

// fill is water-filling: shares by weight capped at demand, what is left shared by weight on top.
func fill(shares map[string]*collectorShare, limit float64) {
	// A fixed order: the same sums every time.
	names := slices.DeleteFunc(slices.Sorted(maps.Keys(shares)), func(n string) bool { return !(shares[n].weight > 0) })
	left, open := max(limit, 0), names
	for len(open) > 0 && left > 0 {
		total, rest := weightOf(shares, open), left
		var still []string
		for _, n := range open {
			if s := shares[n]; s.demand > left*s.weight/total {
				still = append(still, n)
			} else {
				s.rate += s.demand
				rest -= s.demand
			}
		}
		if len(still) == len(open) {
			names = open // every one can use more than its share: the rest is theirs by weight
			break
		}
		left, open = rest, still
	}
	if total := weightOf(shares, names); left > 0 && total > 0 {
		for _, n := range names {
			shares[n].rate += left * shares[n].weight / total
		}
	}
}

func weightOf(shares map[string]*collectorShare, names []string) (total float64) {
	for _, n := range names {
		total += shares[n].weight
	}
	return total
}

func (o *org) spend(collector string, t time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.spent[collector] = append(o.spent[collector], t)
}

func (o *org) spentBy(collector string, now time.Time) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	times := o.spent[collector]
	i := 0
	for i < len(times) && !times[i].After(now.Add(-budget.Period)) {
		i++
	}
	if i > 0 {
		times = append(times[:0], times[i:]...)
		o.spent[collector] = times
	}
	return len(times)
}

// next picks the unit to run and reserves what its refresh needs, within its collector's and the key's hour.
func (k *keyState) next(now time.Time) (*unit, *budget.Reservation) {
	if k.org.pausedUntil().After(now) {
		return nil, nil
	}
	shares := k.shares()
	var (
		best     *unit
		bestDue  time.Time
		bestLoad float64
		bestRoom int
		spent    = map[string]int{}
	)
	for _, u := range k.units {
		due := u.dueAt()
		if now.Before(due) {
			continue
		}
		s := shares[u.collector.Name]
		n, ok := spent[u.collector.Name]
		if !ok {
			n = k.org.spentBy(u.collector.Name, now)
			spent[u.collector.Name] = n
		}
		room := s.allowance() - n
		if room <= 0 {
			continue // the collector has had its share of the hour
		}
		load := float64(n) / max(s.rate, 1e-9)
		if best == nil || load < bestLoad || (load == bestLoad && before(u, due, best, bestDue)) {
			best, bestDue, bestLoad, bestRoom = u, due, load, room
		}
	}
	if best == nil {
		return nil, nil
	}
	res := k.org.budget.Reserve(min(best.cost(), bestRoom))
	if res.Granted() == 0 {
		res.Release()
		return nil, nil // the hour is spent; the most overdue goes first when it frees up
	}
	turn := k.org.picks.Add(1)
	best.state.mu.Lock()
	best.state.turn = turn
	best.state.mu.Unlock()
	return best, res
}

// before: most overdue first, then (a grant paused both within one clock tick) the one that ran longest ago.
func before(a *unit, aDue time.Time, b *unit, bDue time.Time) bool {
	if !aDue.Equal(bDue) {
		return aDue.Before(bDue)
	}
	return a.turn() < b.turn()
}

func (u *unit) turn() uint64 {
	u.state.mu.Lock()
	defer u.state.mu.Unlock()
	return u.state.turn
}
