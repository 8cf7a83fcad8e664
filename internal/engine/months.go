package engine

import (
	"errors"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// The month-to-date counters. Every additive analytics number (page views,
// feedback entries, searches, assistant queries) is exported as a counter
// of events since the start of the current UTC calendar month, fetched
// with day dates only: dateFrom is the 1st, dateTo tomorrow (exclusive),
// both YYYY-MM-DD. That range covers everything up to now whatever the
// upstream's time resolution, and PromQL computes any window from it with
// increase(). On the 1st the counters start again from zero, which
// increase() and rate() take for the counter reset it is. The period start
// is each series' created timestamp.
//
// The counters are one more window of each unit, the month window, so the
// scheduler, the resumable walks and the state file treat them like any
// other window.

// monthWindow is the month-to-date window. Its label is what the walk's
// bookkeeping series (mintlify_page_views_paths and friends) show as
// window; the counters themselves have no window label.
var monthWindow = windowSpec{label: "month", month: true}

// snapshotWindow is the one window of a Snapshot kind: the state now,
// over the range its fetch chooses; its series have no window label.
var snapshotWindow = windowSpec{label: "", duration: 0}

// windowsOnlyDefault is the window of a kind without counters (visitors)
// when the project lists none.
var windowsOnlyDefault = windowSpec{label: "24h", duration: 24 * time.Hour}

// rangeFor is the date range a refresh of window w asks for at now. The
// month window asks for [1st of the month, tomorrow) in day dates, unless
// the upstream refused a future dateTo this month (ws.RefusedFuture): then
// it asks for [1st of the month, now) in RFC 3339, as windows do.
func rangeFor(ws *windowState, w windowSpec, now time.Time) mintlify.DateRange {
	// dateTo is exclusive; truncating to the minute keeps the ranges of
	// refreshes close in time identical, and very recent data is
	// incomplete upstream anyway.
	to := now.UTC().Truncate(time.Minute)
	if !w.month {
		return mintlify.DateRange{From: to.Add(-w.duration), To: to}
	}
	r := mintlify.MonthToDate(now)
	if ws.RefusedFuture.Equal(r.From) {
		return mintlify.DateRange{From: r.From, To: laterOf(to, r.From.Add(time.Minute))}
	}
	return r
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// refusedFuture tells whether err is the upstream refusing the day range
// r of the month window with 400, which it may do because dateTo is in the
// future; it then records the refusal in ws so that this month's later
// refreshes ask for [1st, now) instead. The caller retries at once. A
// cursor refused (mintlify.ErrCursorRefused) is no refused range.
func refusedFuture(ws *windowState, r mintlify.DateRange, err error) bool {
	if err == nil || !r.Days || !mintlify.IsBadRequest(err) || errors.Is(err, mintlify.ErrCursorRefused) {
		return false
	}
	ws.RefusedFuture = r.From
	return true
}
