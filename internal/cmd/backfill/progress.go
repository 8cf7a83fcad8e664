package backfill

import (
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

type backfillTask struct {
	project string
	day     time.Time
}

// backfillProgress rebuilds each views walk with the exporter's walk code, so the same rows end it and the same paths are kept.
type backfillProgress struct {
	plan        *backfillPlan
	tasks       []backfillTask
	walks       map[backfillTask]*mintlify.Walk
	extra       map[taskCollector]journalPage
	done, total int
}

type taskCollector struct {
	backfillTask
	name string // the collector
}

func newBackfillProgress(plan *backfillPlan, journaled []journalPage) *backfillProgress {
	p := &backfillProgress{plan: plan, walks: map[backfillTask]*mintlify.Walk{}, extra: map[taskCollector]journalPage{}}
	for _, id := range plan.projects {
		for d := plan.from; !d.After(plan.to); d = d.AddDate(0, 0, 1) {
			p.tasks = append(p.tasks, backfillTask{id, d})
		}
	}
	for _, jp := range journaled {
		p.record(jp)
		p.done++
	}
	p.total = p.done + p.requestsLeft(nil)
	return p
}

func (p *backfillProgress) record(jp journalPage) {
	day, err := time.Parse(mintlify.DayLayout, jp.Day)
	if err != nil {
		return
	}
	t := backfillTask{jp.Project, day}
	if jp.Collector != "" {
		p.extra[taskCollector{t, jp.Collector}] = jp
		return
	}
	w := p.walks[t]
	if w == nil {
		w = mintlify.NewWalk(mintlify.Views, mintlify.MonthToDate(t.day), p.plan.limit())
		p.walks[t] = w
	}
	if jp.Offset != w.Next*w.PageSize {
		return // not the page the walk needs next: never written so
	}
	w.Add(jp.page(), p.plan.walkOptions(t.project))
	if n := w.Pages(); p.viewsDone(t) && n > p.plan.walkPages[t.project] {
		p.plan.walkPages[t.project] = n
	}
}

func (p *backfillProgress) viewsDone(t backfillTask) bool {
	w := p.walks[t]
	return w != nil && (w.Done() || (p.plan.paths == 0 && w.Requests > 0))
}

func (p *backfillProgress) nextStep(t backfillTask) (name string, offset int, ok bool) {
	if !p.viewsDone(t) {
		if w := p.walks[t]; w != nil {
			offset = w.Next * w.PageSize
		}
		return "", offset, true
	}
	for _, name := range p.plan.extra[t.project] {
		if _, ok := p.extra[taskCollector{t, name}]; !ok {
			return name, 0, true
		}
	}
	return "", 0, false
}

// previous is nil when the day before is not journaled, or refused (collector.Decode).
func (p *backfillProgress) previous(t backfillTask, name string, now time.Time) spec.Payload {
	before := t.day.AddDate(0, 0, -1)
	if before.Month() != t.day.Month() {
		return nil
	}
	jp, ok := p.extra[taskCollector{backfillTask{t.project, before}, name}]
	if !ok || len(jp.Payload) == 0 {
		return nil
	}
	old, err := collector.Decode(name, jp.Payload, now)
	if err != nil {
		return nil // fetched again whole
	}
	return old
}
