package collector

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// errBudgetSpent is what the per-request gate returns when the key's
// allowance for this hour is used up.
var errBudgetSpent = errors.New("analytics budget for this hour is spent")

// Backoff after a 429 without Retry-After: doubling from a minute, capped
// at the budget period, since the upstream counts per hour.
const (
	backoffStart = time.Minute
	backoffMax   = budget.Period
)

// keyState is one API key (one organization): its client, its share of the
// analytics budget, and the units that draw on it.
type keyState struct {
	name   string
	client *mintlify.Client
	budget *budget.Window
	clock  Clock

	mu        sync.Mutex
	units     []*unit // analytics units under this key
	until     time.Time
	throttled int // consecutive 429s
}

// take is the sweep's per-request gate.
func (k *keyState) take(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !k.budget.TryTake() {
		return errBudgetSpent
	}
	return nil
}

// plannedInterval spreads the budget over the key's units: a full round of
// refreshes costs the sum of their expected costs, and may happen
// limit/cost times an hour.
func (k *keyState) plannedInterval() time.Duration {
	k.mu.Lock()
	units := k.units
	k.mu.Unlock()
	cost := 0
	for _, u := range units {
		cost += u.src.expectedCost()
	}
	limit := k.budget.Limit()
	if limit <= 0 {
		return budget.Period
	}
	return time.Duration(float64(budget.Period) * float64(max(cost, 1)) / float64(limit))
}

func (k *keyState) backoffUntil(now time.Time) time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.until
}

// backoff records a 429 and returns when requests may resume: the
// upstream's Retry-After when it sent one, else an exponential delay.
func (k *keyState) backoff(now time.Time, retryAfter time.Duration, hasRetryAfter bool) time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.throttled++
	d := backoffStart << min(k.throttled-1, 10)
	if hasRetryAfter {
		d = retryAfter
	}
	d = min(max(d, time.Second), backoffMax)
	if u := now.Add(d); u.After(k.until) {
		k.until = u
	}
	return k.until
}

func (k *keyState) clearBackoff() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.throttled = 0
}

func (k *keyState) collect(ch chan<- prometheus.Metric, now time.Time) {
	ch <- prometheus.MustNewConstMetric(descBudgetLimit, prometheus.GaugeValue, float64(k.budget.Limit()), k.name)
	ch <- prometheus.MustNewConstMetric(descBudgetUsed, prometheus.GaugeValue, float64(k.budget.Used()), k.name)
	left := k.backoffUntil(now).Sub(now)
	ch <- prometheus.MustNewConstMetric(descBackoff, prometheus.GaugeValue, max(left, 0).Seconds(), k.name)
}
