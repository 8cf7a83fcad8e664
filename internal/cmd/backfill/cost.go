package backfill

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
)

// cost: least is spent whatever the API answers, most with every walk at its bound, expected with
// each views walk as long as the site's last (journal, ledger).
type cost struct {
	least, most, expected int
}

func (c *cost) add(o cost) {
	c.least += o.least
	c.most += o.most
	c.expected += o.expected
}

func (c cost) exact() bool { return c.least == c.most }

type collectorCosts struct {
	names []string
	by    map[string]cost
}

func (cc *collectorCosts) add(name string, c cost) {
	sum, ok := cc.by[name]
	if !ok {
		cc.names = append(cc.names, name)
	}
	sum.add(c)
	cc.by[name] = sum
}

func (cc *collectorCosts) total() cost {
	var t cost
	for _, c := range cc.by {
		t.add(c)
	}
	return t
}

func (p *backfillProgress) costs(of func(id string) bool) *collectorCosts {
	cc := &collectorCosts{by: map[string]cost{}}
	cc.add(collector.Views, cost{})
	for _, name := range extraCollectors {
		if slices.ContainsFunc(p.plan.projects, func(id string) bool { return (of == nil || of(id)) && slices.Contains(p.plan.extra[id], name) }) {
			cc.add(name, cost{})
		}
	}
	for _, t := range p.tasks {
		if of != nil && !of(t.project) {
			continue
		}
		cc.add(collector.Views, p.viewsCost(t))
		for _, name := range p.plan.extra[t.project] {
			if _, ok := p.extra[taskCollector{t, name}]; !ok {
				cc.add(name, p.plan.collectorCost(t, name))
			}
		}
	}
	return cc
}

// viewsCost expects the walk as long as the project's longest so far: at least one page, at most max_pages.
func (p *backfillProgress) viewsCost(t backfillTask) cost {
	if p.viewsDone(t) {
		return cost{}
	}
	if p.plan.paths == 0 {
		return cost{1, 1, 1}
	}
	read := 0
	if w := p.walks[t]; w != nil {
		read = w.Next
	}
	most := max(cmp.Or(p.plan.maxPages, mintlify.DefaultWalkMaxPages)-read, 1)
	return cost{1, most, min(max(p.plan.pagesPerDay(t.project)-read, 1), most)}
}

// collectorCost: a conversations task walks its day alone when the day before is journaled by then, else every
// day of its month to date; the pages beyond each walk's first are known only by walking.
func (p *backfillPlan) collectorCost(t backfillTask, name string) cost {
	k, _ := collector.Lookup(name)
	if k.Paging != spec.CursorPages {
		return cost{1, 1, 1}
	}
	walks := 1
	if t.day.Day() > 1 && !t.day.After(p.from) {
		walks = t.day.Day()
	}
	return cost{walks, walks * collector.ConversationsMaxDayPages, walks}
}

func (p *backfillProgress) requestsLeft(of func(id string) bool) int {
	return p.costs(of).total().expected
}

// costText: "16 requests (views 4, feedback 4, ...)", or a range while walks' later pages are unknown.
func costText(cc *collectorCosts, done int) string {
	t := cc.total()
	var per, walked []string
	for _, name := range cc.names {
		c := cc.by[name]
		per = append(per, fmt.Sprintf("%s %d", name, c.least))
		if !c.exact() {
			walked = append(walked, name)
		}
	}
	if t.exact() {
		return fmt.Sprintf("%d requests (%s)", done+t.least, strings.Join(per, ", "))
	}
	text := fmt.Sprintf("at least %d, at most %d requests (%s; the pages of a walk beyond its first are known only as it reads them: %s)",
		done+t.least, done+t.most, strings.Join(per, ", "), strings.Join(walked, ", "))
	if t.expected != t.least {
		text += fmt.Sprintf(", %d expected with each walk as long as the site's last", done+t.expected)
	}
	return text
}

func rangeText(c cost) string {
	if c.exact() {
		return fmt.Sprint(c.least)
	}
	return fmt.Sprintf("at least %d, at most %d", c.least, c.most)
}
