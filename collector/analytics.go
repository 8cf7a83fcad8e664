package collector

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	sources "github.com/mintlify-exporter/mintlify_exporter/internal/source"
)

// perWindow is the unit's side of a kind whose code is in internal/source
// (feedback, searches, assistant): one fetch a window, whose payload the
// kind turns into samples, shown as the window's gauges and as the month's
// counters.
type perWindow struct {
	kind     kind.Kind
	code     sources.Kind
	project  string // label value
	id       string // upstream project id
	client   *mintlify.Client
	settings sources.Settings
}

func (p *perWindow) name() string             { return p.kind.Name }
func (p *perWindow) cost(ws *windowState) int { return p.code.Cost(ws.Payload) }

func (p *perWindow) fetch(ctx context.Context, ws *windowState, r mintlify.DateRange, now time.Time) (sources.Payload, error) {
	return p.code.Fetch(ctx, sources.Query{Client: p.client, Project: p.id, Range: r, Old: ws.Payload, Now: now, Settings: p.settings})
}

func (p *perWindow) advance(ctx context.Context, ws *windowState, w windowSpec, now time.Time) (bool, error) {
	r := rangeFor(ws, w, now)
	pl, err := p.fetch(ctx, ws, r, now)
	if refusedFuture(ws, r, err) {
		r = rangeFor(ws, w, now)
		pl, err = p.fetch(ctx, ws, r, now)
		if errors.Is(err, mintlify.ErrSweepStopped) && ctx.Err() == nil {
			return false, nil // no budget left for the retry: it runs next
		}
	}
	if err != nil {
		if errors.Is(err, mintlify.ErrSweepStopped) && ctx.Err() == nil && pl != nil {
			// The budget ran out mid-fetch and the kind returned what it
			// finished (whole days, say): kept, and the next try goes on
			// from it. Not a failure; the round resumes when budget frees.
			ws.Payload, ws.Range = pl, &r
			ws.Hint = p.code.Cost(pl)
			return false, nil
		}
		return false, err
	}
	ws.Payload, ws.DataTime, ws.Range = pl, now, &r
	ws.Hint = p.code.Cost(pl)
	return true, nil
}

// series are the kind's samples: gauges of a rolling window, or for the
// month window the families kind.Kind.MonthOf says (the counters, created
// at the start of the month, and gauges shown for the month too).
func (p *perWindow) series(ws *windowState, w windowSpec) []prometheus.Metric {
	if ws.DataTime.IsZero() || ws.Payload == nil || (w.month && ws.Range == nil) {
		return nil
	}
	samples := p.code.Samples(ws.Payload, p.settings)
	ms := make([]prometheus.Metric, 0, len(samples))
	for _, s := range samples {
		if !w.month {
			f := p.kind.Family(s.Family)
			ms = append(ms, prometheus.MustNewConstMetric(familyDesc(f.Name), prometheus.GaugeValue, s.Value, s.LabelValues(f, p.project, w.label)...))
			continue
		}
		f, ok := p.kind.MonthOf(s.Family)
		switch {
		case !ok:
		case f.Counter:
			ms = append(ms, prometheus.MustNewConstMetricWithCreatedTimestamp(familyDesc(f.Name), prometheus.CounterValue, s.Value, ws.Range.From, s.LabelValues(f, p.project, "")...))
		default:
			ms = append(ms, prometheus.MustNewConstMetric(familyDesc(f.Name), prometheus.GaugeValue, s.Value, s.LabelValues(f, p.project, monthWindow.label)...))
		}
	}
	return ms
}

// bookkeeping is the month window's: whether the date fallback is in
// use. Windows have none.
func (p *perWindow) bookkeeping(ws *windowState, w windowSpec) []prometheus.Metric {
	if !w.month || ws.DataTime.IsZero() || ws.Range == nil {
		return nil
	}
	return []prometheus.Metric{prometheus.MustNewConstMetric(descDateFallback, prometheus.GaugeValue, boolFloat(!ws.Range.Days), p.kind.Name, p.project)}
}
