package jobs

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

type jobsOp int

const (
	opCreate jobsOp = iota
	opMessage
	opGet
)

// printJob's JSON is the API's text exactly.
func (e *jobsEnv) printJob(output string, job *mintlify.Job) int {
	var err error
	if output == "json" {
		err = json.NewEncoder(e.stdout).Encode(job)
	} else {
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tMODEL\tREPOSITORY\tREF\tCREATED\tPR\tARCHIVED")
		// Escaped, so no control character from the API reaches the terminal or breaks the columns.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			cell(job.ID), cell(string(job.Status)), cell(job.Model), cell(job.Repository),
			cell(deref(job.Ref)), formatTime(&job.CreatedAt), cell(prLink(job)), formatTime(job.ArchivedAt))
		err = tw.Flush()
	}
	if err != nil {
		return e.failf(cli.ExitError, "writing output: %v", err)
	}
	return cli.ExitOK
}

func (e *jobsEnv) printWatchLine(output string, job *mintlify.Job) int {
	var err error
	if output == "json" {
		err = json.NewEncoder(e.stdout).Encode(job)
	} else {
		line := e.now().Format(time.RFC3339) + "  " + cell(job.ID) + "  " + cell(string(job.Status))
		if pr := prLink(job); pr != "" {
			line += "  " + cell(pr)
		}
		_, err = fmt.Fprintln(e.stdout, line)
	}
	if err != nil {
		return e.failf(cli.ExitError, "writing output: %v", err)
	}
	return cli.ExitOK
}

func prLink(job *mintlify.Job) string { return deref(job.PRLink) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cell escapes control characters (mintlify.EscapeText); JSON output is written as the API sent it.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return mintlify.EscapeText(s)
}

func formatTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.Format(time.RFC3339)
}

// apiFail exits 1 whatever the failure: the request was sent.
func (e *jobsEnv) apiFail(err error, op jobsOp, project, id string) int {
	return e.failf(cli.ExitError, "%s", describeAPIError(err, op, project, id))
}

// describeAPIError's texts, like the client's errors, never carry the key.
func describeAPIError(err error, op jobsOp, project, id string) string {
	if limited, after, ok := mintlify.IsRateLimited(err); limited {
		when := "a few minutes"
		if ok {
			when = after.Round(time.Second).String()
		}
		if op == opGet {
			return "rate limit hit reading job " + id + "; retry after " + when
		}
		return "rate limit hit: the agent API allows 100 job creations and messages per project per hour; retry after " + when
	}
	switch {
	case mintlify.IsUnauthorized(err):
		return "the API key was refused: unknown, revoked or expired"
	case mintlify.IsForbidden(err) && op == opGet:
		return "the API key is not allowed to read this job: the project " + project +
			" belongs to another organization, or this host is outside the key's IP allowlist"
	case mintlify.IsForbidden(err):
		return "the API key is not allowed to do this: creating jobs and sending messages need a write-scoped admin key (or this host is outside the key's IP allowlist)"
	case mintlify.IsNotFound(err) && op == opCreate:
		return "project " + project + " not found (or not visible to this API key)"
	case mintlify.IsNotFound(err):
		return jobNotFound(project, id)
	case mintlify.IsBadRequest(err):
		return "the API refused the request: " + err.Error()
	}
	return err.Error()
}

func jobNotFound(project, id string) string { return "job " + id + " not found in project " + project }
