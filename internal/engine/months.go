package engine

import (
	"errors"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// Month-to-date counters count since the 1st of the UTC month, asked in day dates [1st, tomorrow), which
// covers up to now whatever the upstream's time resolution; increase() does the rest and reads the 1st as
// a reset. They are one more window of each unit, so scheduling, walks and the state file treat them alike.

// monthWindow's label shows only on the walk's bookkeeping series; the counters have no window label.
var monthWindow = windowSpec{label: "month", month: true}

// snapshotWindow is a Snapshot collector's one window, without a label.
var snapshotWindow = windowSpec{label: "", duration: 0}

// windowsOnlyDefault is the window of a collector without counters (visitors) when the project lists none.
var windowsOnlyDefault = windowSpec{label: "24h", duration: 24 * time.Hour}

// rangeFor: the month window asks for [1st, now) in RFC 3339 once the upstream refused a future dateTo this month.
func rangeFor(ws *windowState, w windowSpec, now time.Time) mintlify.DateRange {
	// To the minute, so refreshes close in time ask for identical ranges; recent data is incomplete anyway.
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

// refusedFuture tells a 400 to the month window's day range (dateTo in the future) and records it, so this
// month asks for [1st, now); the caller retries at once. A refused cursor is no refused range.
func refusedFuture(ws *windowState, r mintlify.DateRange, err error) bool {
	if err == nil || !r.Days || !mintlify.IsBadRequest(err) || errors.Is(err, mintlify.ErrCursorRefused) {
		return false
	}
	ws.RefusedFuture = r.From
	return true
}

// A month-to-date counter never falls within its month (Prometheus would read a reset): a value below the
// one served (an upstream clock stepped back) is held at the served one (windowState.Floor).

// CounterKey names one month-to-date counter: its family and its label values besides project.
type CounterKey struct{ Family, A, B string }

// KeyOf is the CounterKey of s.
func KeyOf(s spec.Sample) CounterKey {
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

type counterFloor struct {
	Month  time.Time
	Values map[CounterKey]float64
}

func (u *unit) counters(ws *windowState, each func(CounterKey, float64)) (month time.Time, ok bool) {
	code := u.collector.Fetched
	if code == nil || ws.Range == nil || !u.shows(ws) {
		return time.Time{}, false
	}
	for _, s := range code.Samples(ws.Payload, u.settings) {
		if f, ok := u.collector.MonthOf(s.Family); ok && f.Counter {
			each(KeyOf(s), s.Value)
		}
	}
	return ws.Range.From, true
}

func (u *unit) holdCounters(old, ws *windowState) {
	if _, walk := ws.Payload.(spec.Walking); old.Payload == ws.Payload || walk && (old.DataTime.IsZero() || !u.newData(old.Payload, ws.Payload)) {
		return // the data shown did not change, or is a first walk's, whose counters do not fall until it completes
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

type windowSpec struct {
	label    string
	duration time.Duration
	month    bool
}

// key: a window whose duration changes under the same label is new data.
func (w windowSpec) key() string {
	if w.month {
		return "month"
	}
	return w.label + "=" + w.duration.String()
}
