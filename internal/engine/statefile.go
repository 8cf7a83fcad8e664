package engine

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// The stored schema is the exporter's own types, all json-tagged (TestStateSchemaIsTagged), so client changes
// cannot change the disk format; an incompatible change bumps stateVersion, with a migration and a fixture test.

type windowRecord struct {
	DataTime      time.Time `json:"data_time"`
	Hint          int       `json:"hint"`
	RefusedFuture time.Time `json:"refused_future,omitempty"`
	// Data and Walk are page views' and visitors' walks as stored before they were a payload (migrate).
	Data     json.RawMessage `json:"data,omitempty"`
	Progress time.Time       `json:"progress"`
	Walk     json.RawMessage `json:"walk,omitempty"`
	Range    *rangeRecord    `json:"range,omitempty"`
	Payload  json.RawMessage `json:"payload,omitempty"` // the collector's (collector/)
	Floor    *floorRecord    `json:"floor,omitempty"`
}

type floorRecord struct {
	Month  time.Time     `json:"month"`
	Series []floorSeries `json:"series"`
}

type floorSeries struct {
	Family string  `json:"family"`
	A      string  `json:"a,omitempty"`
	B      string  `json:"b,omitempty"`
	Value  float64 `json:"value"`
}

// rangeRecord is mintlify.DateRange's fields, converted to and from it.
type rangeRecord struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	Days bool      `json:"days,omitempty"`
}

// migrate makes a walk stored beside its window a payload; its progress counted only before a first walk
// completed, so a later walk's is no partial data.
func (rec *windowRecord) migrate() error {
	if len(rec.Data) == 0 && len(rec.Walk) == 0 {
		return nil
	}
	if len(rec.Payload) > 0 {
		return errors.New("a walk beside a payload")
	}
	var err error
	rec.Payload, err = json.Marshal(map[string]any{"data": rec.Data, "walk": rec.Walk, "hint": rec.Hint})
	if !rec.DataTime.IsZero() && rec.Progress.After(rec.DataTime) {
		rec.Progress = rec.DataTime
	}
	return err
}

func (ws *windowState) record() (*windowRecord, error) {
	rec := &windowRecord{DataTime: ws.DataTime, Hint: ws.Hint, RefusedFuture: ws.RefusedFuture, Progress: ws.Progress}
	if ws.Range != nil {
		rec.Range = new(rangeRecord(*ws.Range))
	}
	if ws.Payload != nil {
		b, err := json.Marshal(ws.Payload)
		if err != nil {
			return nil, err
		}
		rec.Payload = b
	}
	if f := ws.Floor; f != nil {
		rec.Floor = &floorRecord{Month: f.Month}
		for k, v := range f.Values {
			rec.Floor.Series = append(rec.Floor.Series, floorSeries{Family: k.Family, A: k.A, B: k.B, Value: v})
		}
		slices.SortFunc(rec.Floor.Series, func(a, b floorSeries) int {
			return cmp.Or(cmp.Compare(a.Family, b.Family), cmp.Compare(a.A, b.A), cmp.Compare(a.B, b.B))
		})
	}
	return rec, nil
}

func (rec *windowRecord) window(c spec.Collector, now time.Time) (*windowState, error) {
	ws := &windowState{DataTime: rec.DataTime, Hint: rec.Hint, RefusedFuture: rec.RefusedFuture, Progress: rec.Progress}
	if rec.Range != nil {
		ws.Range = new(mintlify.DateRange(*rec.Range))
	}
	if len(rec.Payload) > 0 {
		p, err := c.Decode(rec.Payload, now)
		if err != nil {
			return nil, err
		}
		ws.Payload = p
		if wp, ok := p.(spec.Walking); ok {
			ws.Range = wp.ShownRange() // kept in the payload, and not stored before it was one
		}
	}
	if f := rec.Floor; f != nil {
		ws.Floor = &counterFloor{Month: f.Month, Values: make(map[CounterKey]float64, len(f.Series))}
		for _, c := range f.Series {
			ws.Floor.Values[CounterKey{c.Family, c.A, c.B}] = c.Value
		}
	}
	return ws, nil
}

func encodeWindows(windows map[string]*windowState) (map[string]json.RawMessage, error) {
	raws := make(map[string]json.RawMessage, len(windows))
	for k, ws := range windows {
		rec, err := ws.record()
		if err == nil {
			raws[k], err = json.Marshal(rec)
		}
		if err != nil {
			return nil, fmt.Errorf("window %s: %w", k, err)
		}
	}
	return raws, nil
}

// decodeWindows checks each window on its own: a bad one is left out (dropped), the rest served.
func decodeWindows(c spec.Collector, raws map[string]json.RawMessage, now time.Time) (windows map[string]*windowState, dropped []error) {
	windows = make(map[string]*windowState, len(raws))
	for k, raw := range raws {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var rec windowRecord
		err := json.Unmarshal(raw, &rec)
		if err == nil {
			err = rec.migrate()
		}
		if err == nil {
			err = rec.check(c)
		}
		var ws *windowState
		if err == nil {
			ws, err = rec.window(c, now)
		}
		if err != nil {
			dropped = append(dropped, fmt.Errorf("window %q: %w", mintlify.EscapeText(k), err))
			continue
		}
		windows[k] = ws
	}
	return windows, dropped
}
