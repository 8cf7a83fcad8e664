package backfill

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// renderBackfill builds the other collectors' counters from their samples, as the exporter's month counters are.
func renderBackfill(w io.Writer, plan *backfillPlan, progress *backfillProgress, now time.Time) error {
	pv, _ := collector.Lookup(collector.Views)
	site, _ := pv.MonthOf("mintlify_site_page_views")
	page, _ := pv.MonthOf("mintlify_page_views")
	families := []*omFamily{counterFamily(site), counterFamily(page)}
	counters := map[string]*omFamily{site.Name: families[0], page.Name: families[1]}
	for _, name := range extraCollectors {
		k, _ := collector.Lookup(name)
		for _, f := range k.Counters() {
			counters[f.Name] = counterFamily(f)
			families = append(families, counters[f.Name])
		}
	}
	for _, t := range progress.tasks {
		id, d := t.project, t.day
		label := plan.label(id)
		if !progress.viewsDone(t) {
			return fmt.Errorf("no data for project %s, day %s", id, d.Format(mintlify.DayLayout))
		}
		end := d.AddDate(0, 0, 1)
		for _, s := range collector.DaySamples(progress.walks[t], plan.paths > 0) {
			f, _ := pv.MonthOf(s.Family)
			counters[f.Name].add(samplePairs(label, s, plan.labels), end, s.Value)
		}
		for _, name := range plan.extra[id] {
			jp, ok := progress.extra[taskCollector{t, name}]
			if !ok {
				return fmt.Errorf("no %s data for project %s, day %s", name, id, d.Format(mintlify.DayLayout))
			}
			samples, err := daySamples(name, jp, plan.settings(name, func(path string) bool { return plan.keep(id, path) }), now)
			if err != nil {
				return fmt.Errorf("project %s, day %s: %v", id, d.Format(mintlify.DayLayout), err)
			}
			for _, s := range samples {
				counters[s.Family].add(samplePairs(label, s, plan.labels), end, s.Value)
			}
		}
	}
	return renderOpenMetrics(w, families...)
}

func samplePairs(label string, s spec.Sample, extra []labelPair) []labelPair {
	pairs := []labelPair{{"project", label}}
	for _, l := range s.Labels {
		pairs = append(pairs, labelPair{l.Name, l.Value})
	}
	return append(pairs, extra...)
}

// daySamples refuses a payload this program could not have written by now (collector.Decode).
func daySamples(name string, jp journalPage, settings spec.Settings, now time.Time) ([]spec.Sample, error) {
	if len(jp.Payload) == 0 {
		return nil, nil
	}
	k, _ := collector.Lookup(name)
	p, err := k.Decode(jp.Payload, now)
	if err != nil {
		return nil, err
	}
	var out []spec.Sample
	for _, s := range k.Fetched.Samples(p, settings) {
		if f, ok := k.MonthOf(s.Family); ok && f.Counter {
			s.Family = f.Name
			out = append(out, s)
		}
	}
	return out, nil
}

func counterFamily(f spec.Family) *omFamily {
	return &omFamily{name: strings.TrimSuffix(f.Name, "_total"), help: f.Help + " Written by mintlify_exporter backfill: the value at the end of each day.", series: map[string]*omSeries{}}
}
