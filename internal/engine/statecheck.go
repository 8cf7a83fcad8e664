package engine

import (
	"fmt"
	"slices"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// The state file is untrusted input (#36): every stored value passes an API answer's checks, so a damaged
// or hand-edited file cannot put into /metrics what no API answer could. A failing record is dropped.

// maxStoredPages: no walk that fits the data cache (MaxDataBytes) reads a million pages.
const maxStoredPages = 1 << 20

// maxStoredFailures: the back-off shifts by at most ten of them anyway.
const maxStoredFailures = 1 << 20

func (h *health) check() error {
	if h.Failures < 0 || h.Failures > maxStoredFailures {
		return fmt.Errorf("failures %d out of range", h.Failures)
	}
	if h.LastReason != "" && !slices.Contains(mintlify.Reasons, h.LastReason) {
		return fmt.Errorf("unknown failure reason %q", mintlify.EscapeText(h.LastReason))
	}
	for reason, n := range h.FailCounts {
		if !slices.Contains(mintlify.Reasons, reason) {
			return fmt.Errorf("unknown failure reason %q", mintlify.EscapeText(reason))
		}
		if err := mintlify.CheckCount(n, "fail_counts."+reason); err != nil {
			return err
		}
	}
	return nil
}

func (rec *windowRecord) check(c spec.Collector) error {
	if rec.Hint < 0 || rec.Hint > maxStoredPages {
		return fmt.Errorf("hint %d out of range", rec.Hint)
	}
	if rec.Range != nil {
		if err := rec.Range.check(); err != nil {
			return err
		}
	}
	return rec.Floor.check(c)
}

// maxFloorSeries: two a path of the largest walk, far more than any collector's.
const maxFloorSeries = 1 << 21

func (f *floorRecord) check(k spec.Collector) error {
	if f == nil {
		return nil
	}
	if !f.Month.Equal(mintlify.MonthToDate(f.Month).From) || len(f.Series) > maxFloorSeries {
		return fmt.Errorf("floor of %s with %d series: not a month's start, or too many", f.Month, len(f.Series))
	}
	for _, c := range f.Series {
		if m, ok := k.MonthOf(c.Family); !ok || !m.Counter {
			return fmt.Errorf("floor: %q is no counter of %s", mintlify.EscapeText(c.Family), k.Name)
		}
		if err := mintlify.CheckCount(c.Value, "floor"); err != nil {
			return err
		}
	}
	return nil
}

// A snapshot's range may be empty: it asks for the state now.
func (r rangeRecord) check() error {
	if r.From.IsZero() || r.To.Before(r.From) {
		return fmt.Errorf("range %s to %s is not a range", r.From, r.To)
	}
	return nil
}
