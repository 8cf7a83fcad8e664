package collector

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/config"

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
	// weights split the budget between the analytics collectors.
	weights config.CollectorWeights

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

// plannedInterval spreads the budget over the key's units. Each analytics
// collector kind enabled under the key gets the share of the budget its
// weight gives it; the units of that kind (one per project) then refresh
// as often as that share pays for a full round of them:
//
//	interval(kind) = 1h × Σ cost(units of kind) / (limit × weight(kind) / Σ weights of enabled kinds)
//
// Summed over kinds that is exactly the limit per hour, so turning on a
// collector slows the others down instead of overspending.
func (k *keyState) plannedInterval(kind string) time.Duration {
	k.mu.Lock()
	units := k.units
	k.mu.Unlock()
	cost := 0
	kinds := map[string]bool{}
	for _, u := range units {
		kinds[u.src.name()] = true
		if u.src.name() == kind {
			cost += u.src.expectedCost()
		}
	}
	var total float64
	for n := range kinds {
		total += k.weights.Of(n)
	}
	limit := float64(k.budget.Limit())
	share := k.weights.Of(kind) / total
	if limit <= 0 || total <= 0 || share <= 0 {
		return budget.Period
	}
	return time.Duration(float64(budget.Period) * float64(max(cost, 1)) / (limit * share))
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
