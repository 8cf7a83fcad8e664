package engine

import (
	"errors"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
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

// A month-to-date counter never falls within its month: Prometheus would
// read the fall as a reset. When a refresh brings a lower value than the
// one served for the same month (an upstream whose clock stepped back),
// the window keeps the served one as a floor (windowState.Floor) until
// the upstream's count passes it; a new month starts from its own values.

// CounterKey names one month-to-date counter of a unit: the family of its
// sample and the values of its labels besides project, in the sample's
// order.
type CounterKey struct{ Family, A, B string }

// KeyOf is the CounterKey of s.
func KeyOf(s source.Sample) CounterKey {
	k := CounterKey{Family: s.Family}
	for i, l := range s.Labels {
		switch i {
		case 0:
			k.A = l.Value
		case 1:
			k.B = l.Value
		default:
			k.B += "\xff" + l.Value
		}
	}
	return k
}

// counterFloor is the values the counters of the month starting at Month
// are served at least.
type counterFloor struct {
	Month  time.Time
	Values map[CounterKey]float64
}

// counters calls each with the month-to-date counters ws shows, and
// returns the start of their month; ok is false when it shows none.
func (u *unit) counters(ws *windowState, each func(CounterKey, float64)) (month time.Time, ok bool) {
	if wk, walked := source.LookupWalked(u.kind.Name); walked {
		walk := shown(ws)
		if walk == nil {
			return time.Time{}, false
		}
		wk.PathSamples(walk.Rows, func(path, traffic string, v float64) { each(CounterKey{wk.Page, path, traffic}, v) })
		for _, s := range wk.SiteSamples(walk.Totals) {
			if s.Family == wk.Site {
				each(KeyOf(s), s.Value)
			}
		}
		return walk.Range.From, true
	}
	code, fetched := source.Lookup(u.kind.Name)
	if !fetched || ws.Range == nil || !u.src.shows(ws) {
		return time.Time{}, false
	}
	for _, s := range code.Samples(ws.Payload, u.settings) {
		if f, ok := u.kind.MonthOf(s.Family); ok && f.Counter {
			each(KeyOf(s), s.Value)
		}
	}
	return ws.Range.From, true
}

// holdCounters sets the floor of ws, the month window after a refresh,
// from old, the same window before it: every counter of the same month
// that ws shows lower than old served it is held at what was served.
func (u *unit) holdCounters(old, ws *windowState) {
	if old.Payload == ws.Payload && shown(old) == shown(ws) {
		return // the data shown did not change
	}
	served := map[CounterKey]float64{}
	oldMonth, ok := u.counters(old, func(k CounterKey, v float64) {
		if f := old.Floor; f != nil {
			v = max(v, f.Values[k])
		}
		served[k] = v
	})
	var held map[CounterKey]float64
	month, shows := u.counters(ws, func(k CounterKey, v float64) {
		if h, ok := served[k]; ok && v < h {
			if held == nil {
				held = map[CounterKey]float64{}
			}
			held[k] = h
		}
	})
	ws.Floor = nil
	if !ok || !shows || !month.Equal(oldMonth) || len(held) == 0 {
		return
	}
	ws.Floor = &counterFloor{Month: month, Values: held}
	u.log.Debug("the upstream's month to date fell; its counters keep the higher values already served", "series", len(held), "month", month.Format("2006-01"))
}
