package engine

import (
	"errors"
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

// check: a walked collector keeps walks and no payload, the others a payload and no walk.
func (rec *windowRecord) check(c spec.Collector) error {
	if rec.Hint < 0 || rec.Hint > maxStoredPages {
		return fmt.Errorf("hint %d out of range", rec.Hint)
	}
	if rec.Range != nil {
		if err := rec.Range.check(); err != nil {
			return err
		}
	}
	var rows mintlify.RowsKind
	switch {
	case c.Walked == nil && (rec.Data != nil || rec.Walk != nil):
		return fmt.Errorf("a walk, which collector %s does not make", c.Name)
	case c.Walked != nil && len(rec.Payload) > 0:
		return fmt.Errorf("a payload, which collector %s does not make", c.Name)
	case c.Walked != nil:
		rows = c.Walked.Rows
	}
	if err := rec.Data.check(rows, true); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if err := rec.Walk.check(rows, false); err != nil {
		return fmt.Errorf("walk: %w", err)
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

// Rows whose path is no label value are no error: older versions kept them, and the export drops them.
func (rec *walkRecord) check(rows mintlify.RowsKind, data bool) error {
	if rec == nil {
		return nil
	}
	if err := rec.checkBounds(rows); err != nil {
		return err
	}
	if err := rec.Range.check(); err != nil {
		return err
	}
	if err := rec.Totals.check("totals"); err != nil {
		return err
	}
	return rec.checkRows(data)
}

func (rec *walkRecord) checkBounds(rows mintlify.RowsKind) error {
	switch {
	case rec.Kind != string(rows):
		return fmt.Errorf("a walk of %q, not %q", mintlify.EscapeText(rec.Kind), rows)
	case rec.PageSize < 1 || rec.PageSize > mintlify.MaxPageSize:
		return fmt.Errorf("page size %d out of range", rec.PageSize)
	case rec.Next < 0 || rec.Next > maxStoredPages || rec.Last < -1 || rec.Last > rec.Next:
		return fmt.Errorf("pages next %d, last %d out of range", rec.Next, rec.Last)
	case rec.Requests < 0 || rec.Requests > maxStoredPages || rec.Duplicates < 0 || rec.Dropped < 0:
		return fmt.Errorf("counts of requests %d, duplicates %d, dropped %d out of range", rec.Requests, rec.Duplicates, rec.Dropped)
	case len(rec.Rows) > rec.Requests*rec.PageSize || len(rec.Seen) > rec.Requests*rec.PageSize:
		return fmt.Errorf("%d rows, %d seen: more than %d requests of %d hold", len(rec.Rows), len(rec.Seen), rec.Requests, rec.PageSize)
	}
	return nil
}

func (rec *walkRecord) checkRows(data bool) error {
	var paths map[string]bool
	if data {
		paths = make(map[string]bool, len(rec.Rows))
	}
	for _, r := range rec.Rows {
		if err := (countRecord{r.Human, r.AI, r.Total}).check("row"); err != nil {
			return fmt.Errorf("path %q: %w", mintlify.EscapeText(r.Path), err)
		}
		if paths != nil {
			if paths[r.Path] {
				return fmt.Errorf("path %q twice", mintlify.EscapeText(r.Path))
			}
			paths[r.Path] = true
		}
	}
	return nil
}

func (c countRecord) check(where string) error {
	return errors.Join(mintlify.CheckCount(c.Human, where+".human"), mintlify.CheckCount(c.AI, where+".ai"),
		mintlify.CheckCount(c.Total, where+".total"))
}
