package backfill

// The cost of a run: the requests its tasks still need, per collector,
// as exactly as they can be known before the requests are made.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/kind"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/source"
)

// cost is what some of a run's requests are: least, those made whatever
// the API answers (the first page of each walk, the one request of a
// counter fetched whole); most, with every walk as long as its bound;
// expected, with each walk of the views as long as the site's last
// (journal, ledger). The three are equal when nothing is walked.
type cost struct {
	least, most, expected int
}

func (c *cost) add(o cost) {
	c.least += o.least
	c.most += o.most
	c.expected += o.expected
}

// exact reports whether the cost is known before the requests are made.
func (c cost) exact() bool { return c.least == c.most }

// collectorCosts are the costs of the tasks left of the projects of
// (nil: all), by collector, in the order of the output: the views, then
// extraKinds.
type collectorCosts struct {
	names []string
	by    map[string]cost
}

func (cc *collectorCosts) add(name string, c cost) {
	if _, ok := cc.by[name]; !ok {
		cc.names = append(cc.names, name)
	}
	sum := cc.by[name]
	sum.add(c)
	cc.by[name] = sum
}

// total is the sum over the collectors.
func (cc *collectorCosts) total() cost {
	var t cost
	for _, c := range cc.by {
		t.add(c)
	}
	return t
}

// costs is what the tasks of the projects of (nil: all) still need.
func (p *backfillProgress) costs(of func(id string) bool) *collectorCosts {
	cc := &collectorCosts{by: map[string]cost{}}
	cc.add(source.Views, cost{})
	for _, name := range extraKinds {
		for _, id := range p.plan.projects {
			if (of == nil || of(id)) && slices.Contains(p.plan.extra[id], name) {
				cc.add(name, cost{})
				break
			}
		}
	}
	for _, t := range p.tasks {
		if of != nil && !of(t.project) {
			continue
		}
		cc.add(source.Views, p.viewsCost(t))
		for _, name := range p.plan.extra[t.project] {
			if _, ok := p.extra[taskKind{t, name}]; !ok {
				cc.add(name, p.plan.kindCost(t, name))
			}
		}
	}
	return cc
}

// viewsCost is what the views of task t still need: nothing when done;
// for the site totals one row; else the rest of the month walk, at least
// one page, at most the walk's max_pages, expected as long as the
// project's longest walk so far.
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
	most := max(p.plan.walkMaxPages()-read, 1)
	return cost{1, most, min(max(p.plan.pagesPerDay(t.project)-read, 1), most)}
}

// walkMaxPages bounds a walk of the views: the configuration's max_pages,
// else the walk's default.
func (p *backfillPlan) walkMaxPages() int {
	if p.maxPages > 0 {
		return p.maxPages
	}
	return mintlify.DefaultWalkMaxPages
}

// kindCost is what counter name of task t costs. A kind of one page is
// one request. The conversations walk day by day, a cursor page of
// mintlify.ConversationsPageSize rows after another: the task's day
// alone when the day before is in the journal by then (a task after the
// first of the range, or the 1st of a month), else every day of its month
// to date; each walk one page and those beyond the first, which only the
// walk tells.
func (p *backfillPlan) kindCost(t backfillTask, name string) cost {
	k, _ := kind.Lookup(name)
	if k.Paging != kind.CursorPages {
		return cost{1, 1, 1}
	}
	walks := 1
	if t.day.Day() > 1 && !t.day.After(p.from) {
		walks = t.day.Day()
	}
	return cost{walks, walks * source.ConversationsMaxDayPages, walks}
}

// requestsLeft is how many requests the tasks of the projects of (nil:
// all) are expected still to need.
func (p *backfillProgress) requestsLeft(of func(id string) bool) int {
	return p.costs(of).total().expected
}

// costText says what cc costs, as the cost line prints it, done the
// requests already in the journal: "16 requests (views 4, feedback 4,
// searches 4, assistant 4)", or for walks whose pages are not known yet
// "at least 38, at most 6638 requests (views 5, conversations 33, each
// walk's pages beyond the first not counted: views, conversations)".
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

// rangeText is c as a count: "16", or "at least 5, at most 205".
func rangeText(c cost) string {
	if c.exact() {
		return fmt.Sprint(c.least)
	}
	return fmt.Sprintf("at least %d, at most %d", c.least, c.most)
}
