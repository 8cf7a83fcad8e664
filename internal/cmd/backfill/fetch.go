package backfill

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
	"github.com/mintlify-exporter/mintlify_exporter/internal/budget"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
	"github.com/mintlify-exporter/mintlify_exporter/internal/spec"
	"github.com/mintlify-exporter/mintlify_exporter/internal/statefiles"
)

type backfillKey struct {
	keyRef
	secret secret.Secret
	left   int // requests still to make with it
	window *budget.Window
	ledger *backfillLedger
	client *mintlify.Client
}

func (k *backfillKey) of() string {
	if k.name == "" {
		return ""
	}
	return " for key " + k.name
}

type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

func (e *backfillEnv) fetch(ctx context.Context, plan *backfillPlan, keys []*backfillKey, j *journal, progress *backfillProgress) int {
	f := &fetcher{e: e, ctx: ctx, plan: plan, j: j, progress: progress}
	gated := make([]*mintlify.Client, len(keys))
	for i, k := range keys {
		gated[i] = k.client.Gated(f.gate(k))
	}
	made := 0
	for _, task := range progress.tasks {
		c := gated[plan.keyOf[task.project]]
		for step, offset, ok := progress.nextStep(task); ok; step, offset, ok = progress.nextStep(task) {
			before := f.requests
			jp, code := f.request(c, task, step, offset)
			progress.done += f.requests - before
			if code != cli.ExitOK {
				return code
			}
			if err := j.add(jp); err != nil {
				return e.failf(cli.ExitError, "writing %s: %v", j.f.Name(), err)
			}
			made++
			progress.record(jp)
			progress.total = progress.done + progress.requestsLeft(nil)
			if e.afterPage != nil {
				e.afterPage(made)
			}
		}
		e.showProgress(task, progress.done, progress.total)
	}
	e.endBar()
	return cli.ExitOK
}

type fetcher struct {
	e         *backfillEnv
	ctx       context.Context // the run's
	plan      *backfillPlan
	j         *journal
	progress  *backfillProgress
	ledgerErr error // the state file could not be used
	// requests: a walk's step (the conversations) can be several.
	requests int
}

// gate waits until the key's budget, with what the exporter recorded in the state file, has room.
func (f *fetcher) gate(k *backfillKey) mintlify.Gate {
	e := f.e
	return func(ctx context.Context) error {
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			took, err := e.take(ctx, k.ledger, k.window)
			if err != nil {
				f.ledgerErr = err
				return err
			}
			if took {
				f.requests++
				return nil
			}
			wait := k.window.FreeAt(1).Sub(e.now())
			e.endBar()
			fmt.Fprintf(e.stderr, "%s: %d requests made in the last hour%s; waiting %s for the budget\n", backfillCmdName, k.window.Used(), k.of(), wait.Round(time.Second))
			if err := e.sleep(ctx, wait); err != nil {
				return err
			}
		}
	}
}

// request sits out up to maxRateLimitWaits 429s in a row; any other failure ends the run (resumably).
func (f *fetcher) request(c *mintlify.Client, task backfillTask, step string, offset int) (journalPage, int) {
	e := f.e
	interrupted := func() int {
		return e.failf(cli.ExitError, "interrupted; %d of %d requests are done and kept in %s: run the same command again to continue", f.progress.done, f.progress.total, f.j.f.Name())
	}
	for limited := 0; ; limited++ {
		jp, err := fetchStep(f.ctx, c, f.plan, task, step, offset, f.progress.previous(task, step, e.now()), e.now())
		switch {
		case err == nil:
			return jp, cli.ExitOK
		case f.ledgerErr != nil:
			return jp, e.failf(cli.ExitError, "%v (give --storage.path='' not to share the budget with the exporter); what was fetched is kept in %s", f.ledgerErr, f.j.f.Name())
		case f.ctx.Err() != nil:
			return jp, interrupted()
		}
		isLimited, after, ok := mintlify.IsRateLimited(err)
		if !isLimited || limited >= maxRateLimitWaits {
			return jp, f.failed(task, err)
		}
		// Someone else spends the same organization's budget: sit it out.
		if !ok {
			after = defaultRateLimitWait
		}
		e.endBar()
		fmt.Fprintf(e.stderr, "%s: the API answered 429 (rate limited); waiting %s\n", backfillCmdName, after.Round(time.Second))
		if err := e.sleep(f.ctx, after); err != nil {
			return jp, interrupted()
		}
	}
}

// failed exits 2 for a range the API refuses, else 1 (mintlify.Classify).
func (f *fetcher) failed(task backfillTask, err error) int {
	code := cli.ExitOfAPIError(err) // ExitUsage for a range the API refuses (400)
	what := err.Error()
	if code == cli.ExitUsage {
		r := mintlify.MonthToDate(task.day)
		what = "the API refused the range " + r.From.Format(mintlify.DayLayout) + " to " + r.To.Format(mintlify.DayLayout) + " (it may not keep history that old): " + what
	}
	return f.e.failf(code, "project %s, day %s: %s; what was fetched is kept in %s", task.project, task.day.Format(mintlify.DayLayout), what, f.j.f.Name())
}

// fetchStep: old, the collector's answer of the day before in the month, lets a collector that keeps finished days ask only for the new day.
func fetchStep(ctx context.Context, c *mintlify.Client, plan *backfillPlan, task backfillTask, step string, offset int, old spec.Payload, now time.Time) (journalPage, error) {
	r := mintlify.MonthToDate(task.day)
	jp := journalPage{Project: task.project, Day: task.day.Format(mintlify.DayLayout), Collector: step}
	if k, _ := collector.Lookup(step); k.Fetched != nil {
		q := spec.Query{Client: c, Project: task.project, Range: r, Old: old, Now: now,
			Settings: plan.settings(step, func(string) bool { return true })}
		p, err := k.Fetched.Fetch(ctx, q)
		if err != nil {
			return jp, err
		}
		jp.Payload, err = json.Marshal(p)
		return jp, err
	}
	page, err := c.Rows(ctx, mintlify.Views, task.project, r, plan.limit(), offset)
	if err != nil {
		return jp, err
	}
	jp.Offset, jp.Totals, jp.HasMore = offset, page.Totals, page.HasMore
	if plan.paths > 0 {
		for _, row := range page.Rows {
			jp.Rows = append(jp.Rows, journalRow{Path: row.Path, Raw: []byte(row.Raw), Human: row.Human, AI: row.AI, Total: row.Total})
		}
	}
	return jp, nil
}

func (e *backfillEnv) showProgress(task backfillTask, done, total int) {
	day := task.day.Format(mintlify.DayLayout)
	if !e.tty {
		fmt.Fprintf(e.stderr, "%s: project %s %s done (%d/%d requests)\n", backfillCmdName, task.project, day, done, total)
		return
	}
	const width = 30
	filled := width * done / max(total, 1)
	fmt.Fprintf(e.stderr, "\r[%s%s] %d/%d requests, %s %s\x1b[K", strings.Repeat("#", filled), strings.Repeat(".", width-filled), done, total, task.project, day)
	e.barShown = true
}

func (e *backfillEnv) endBar() {
	if e.barShown {
		fmt.Fprintln(e.stderr)
		e.barShown = false
	}
}

const backfillWriter = "backfill"

// backfillLedger shares key fp's budget with the exporter through its --storage.path ledger; l nil shares nothing.
type backfillLedger struct {
	l  *statefiles.Ledger
	fp string
}

func (e *backfillEnv) take(ctx context.Context, l *backfillLedger, window *budget.Window) (bool, error) {
	if l.l == nil {
		return window.TryTake(), nil
	}
	took, err := l.l.Take(ctx, l.fp, backfillWriter, window, e.now())
	e.sayReplaced(l.l)
	return took, err
}

// sayReplaced: a replaced ledger's hour counts as spent for the key.
func (e *backfillEnv) sayReplaced(l *statefiles.Ledger) {
	for _, r := range l.TakeReplaced() {
		fmt.Fprintf(e.stderr, "%s: the ledger %s could not be read (%v); it was moved aside to %s and a fresh one written. What it recorded is unknown, so the key's budget counts as spent until %s\n",
			backfillCmdName, r.Path, r.Err, r.Aside, r.Until.UTC().Format(time.RFC3339))
	}
}
