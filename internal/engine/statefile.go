package engine

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// The stored schema is the exporter's own types, all json-tagged (TestStateSchemaIsTagged), so client changes
// cannot change the disk format; an incompatible change bumps stateVersion, with a migration and a fixture test.

type windowRecord struct {
	DataTime      time.Time       `json:"data_time"`
	Hint          int             `json:"hint"`
	RefusedFuture time.Time       `json:"refused_future,omitempty"`
	Data          *walkRecord     `json:"data,omitempty"`
	Progress      time.Time       `json:"progress"`
	Walk          *walkRecord     `json:"walk,omitempty"`
	Range         *rangeRecord    `json:"range,omitempty"`
	Payload       json.RawMessage `json:"payload,omitempty"` // the collector's (collector/)
	Floor         *floorRecord    `json:"floor,omitempty"`
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

type rangeRecord struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	Days bool      `json:"days,omitempty"`
}

type walkRecord struct {
	Kind       string      `json:"kind"`
	Range      rangeRecord `json:"range"`
	PageSize   int         `json:"page_size"`
	Next       int         `json:"next"`
	Last       int         `json:"last"`
	Totals     countRecord `json:"totals"`
	Rows       []rowRecord `json:"rows"`
	Requests   int         `json:"requests"`
	Duplicates int         `json:"duplicates"`
	Dropped    int         `json:"dropped"`
	Repeated   bool        `json:"repeated"`
	Truncated  bool        `json:"truncated"`
	Seen       []uint64    `json:"seen"`
}

type countRecord struct {
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

type rowRecord struct {
	Path  string  `json:"path"`
	Human float64 `json:"human"`
	AI    float64 `json:"ai"`
	Total float64 `json:"total"`
}

func toRange(r mintlify.DateRange) rangeRecord {
	return rangeRecord{From: r.From, To: r.To, Days: r.Days}
}

func (r rangeRecord) dateRange() mintlify.DateRange {
	return mintlify.DateRange{From: r.From, To: r.To, Days: r.Days}
}

func toWalk(w *mintlify.Walk) *walkRecord {
	if w == nil {
		return nil
	}
	rec := &walkRecord{Kind: string(w.Kind), Range: toRange(w.Range), PageSize: w.PageSize, Next: w.Next, Last: w.Last,
		Totals:   countRecord(w.Totals),
		Requests: w.Requests, Duplicates: w.Duplicates, Dropped: w.Dropped, Repeated: w.Repeated, Truncated: w.Truncated, Seen: w.Seen,
		Rows: make([]rowRecord, len(w.Rows))}
	for i, r := range w.Rows {
		rec.Rows[i] = rowRecord{Path: r.Path, Human: r.Human, AI: r.AI, Total: r.Total}
	}
	return rec
}

func (rec *walkRecord) walk() *mintlify.Walk {
	if rec == nil {
		return nil
	}
	w := &mintlify.Walk{Kind: mintlify.RowsKind(rec.Kind), Range: rec.Range.dateRange(), PageSize: rec.PageSize, Next: rec.Next, Last: rec.Last,
		Totals:   mintlify.Counts(rec.Totals),
		Requests: rec.Requests, Duplicates: rec.Duplicates, Dropped: rec.Dropped, Repeated: rec.Repeated, Truncated: rec.Truncated, Seen: rec.Seen,
		Rows: make([]mintlify.PageViewRow, len(rec.Rows))}
	for i, r := range rec.Rows {
		w.Rows[i] = mintlify.PageViewRow{Path: r.Path, Counts: mintlify.Counts{Human: r.Human, AI: r.AI, Total: r.Total}}
	}
	return w
}

func (ws *windowState) record() (*windowRecord, error) {
	rec := &windowRecord{DataTime: ws.DataTime, Hint: ws.Hint, RefusedFuture: ws.RefusedFuture,
		Data: toWalk(ws.Data), Progress: ws.Progress, Walk: toWalk(ws.Walk)}
	if ws.Range != nil {
		r := toRange(*ws.Range)
		rec.Range = &r
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
	ws := &windowState{DataTime: rec.DataTime, Hint: rec.Hint, RefusedFuture: rec.RefusedFuture,
		Data: rec.Data.walk(), Progress: rec.Progress, Walk: rec.Walk.walk()}
	if rec.Range != nil {
		r := rec.Range.dateRange()
		ws.Range = &r
	}
	if len(rec.Payload) > 0 {
		p, err := c.Decode(rec.Payload, now)
		if err != nil {
			return nil, err
		}
		ws.Payload = p
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
