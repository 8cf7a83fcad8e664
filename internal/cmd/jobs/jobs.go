// Package jobs is the jobs command: it creates, messages, reads and watches agent jobs, and records them in the tracked-jobs file.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/trackfile"
)

const (
	jobsCmdName = cli.Name + " jobs"
	// maxPromptBytes: the API takes a JSON body of at most about 1 MiB.
	maxPromptBytes = 512 << 10
)

// jobsEnv lets tests replace stdin, the clock and sleep, so watching needs no real waiting.
type jobsEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
}

// Run runs the jobs command with args (after "jobs") and returns its exit status.
func Run(args []string, stdout, stderr io.Writer) int {
	env := &jobsEnv{
		stdin: os.Stdin, stdout: stdout, stderr: stderr,
		getenv: os.Getenv, now: time.Now, sleep: cli.SleepContext,
	}
	return env.run(args)
}

type jobsOptions struct {
	cli.Flags
	output string

	createPrompt  promptSource
	messagePrompt promptSource
	track         string
	jobID         string
	interval      time.Duration
	watchTimeout  time.Duration
}

func newJobsApp(o *jobsOptions) (*kingpin.Application, *bool) {
	app := kingpin.New(jobsCmdName, "Create, message, read and watch Mintlify agent jobs.\n\n"+
		"The admin API key is read from --mintlify.api-key-file or the MINTLIFY_API_KEY environment variable, never from a flag value. "+
		"Creating jobs and sending messages need a write-scoped key; both count against the API's limit of 100 per project per hour.\n\n"+
		"Exit status: 0 success; 1 an API error, no answer, a file that cannot be read or written (--prompt-file, --mintlify.api-key-file, --track), or (watch) the job failed; "+
		"2 a bad command line or input: unknown flag or command, no project id, no key or a key of the wrong type, a malformed --mintlify.api-url, an empty prompt (nothing sent); 3 watch timed out.")
	app.HelpFlag.Short('h')
	o.AddProjectID(app, "The project the jobs belong to.").Required()
	o.AddKeyFile(app, "")
	o.AddAPIURL(app, "")
	o.AddRequestTimeout(app, "")
	o.Deprecated(app, "request-timeout", "mintlify.request-timeout", func(c *kingpin.FlagClause) { c.DurationVar(&o.RequestTimeout) })
	app.Flag("output", "Output format: table or json (one JSON object per line).").Short('o').Default("table").EnumVar(&o.output, "table", "json")

	create := app.Command("create", "Start an agent job and print it. The prompt comes from --prompt, --prompt-file, or standard input.")
	addPromptFlags(create, &o.createPrompt)
	create.Flag("track", "After creating the job, append its id to this tracked-jobs file (the exporter's --mintlify.tracked-jobs-file). The directory must exist.").PlaceHolder("FILE").StringVar(&o.track)

	message := app.Command("message", "Send a follow-up prompt to a job and print it. The prompt comes from --prompt, --prompt-file, or standard input.")
	message.Arg("id", "Job id.").Required().StringVar(&o.jobID)
	addPromptFlags(message, &o.messagePrompt)

	get := app.Command("get", "Print a job.")
	get.Arg("id", "Job id.").Required().StringVar(&o.jobID)

	watch := app.Command("watch", "Poll a job until it is completed, archived or failed, printing a line at each change of status or pull-request link. "+
		"Exit status 0 when it completed or was archived, 1 when it failed, 3 when --timeout passed first.")
	watch.Arg("id", "Job id.").Required().StringVar(&o.jobID)
	watch.Flag("interval", "Time between polls.").Default("10s").DurationVar(&o.interval)
	watch.Flag("timeout", "Give up (exit status 3) when the job has not finished after this long.").Default("30m").DurationVar(&o.watchTimeout)

	helped := new(bool)
	app.HelpFlag.PreAction(func(*kingpin.ParseContext) error { *helped = true; return nil })
	return app, helped
}

func (e *jobsEnv) parse(args []string, o *jobsOptions) (cmd string, code int, done bool) {
	app, helped := newJobsApp(o)
	cmd, code, done = cli.Parse(app, args, e.stdout, e.stderr, jobsCmdName, cli.ExitUsage)
	if !done {
		o.Warn(e.stderr, jobsCmdName)
	}
	// Kingpin's --help-long and --help-man end the parse before any action of ours runs.
	if done && code == 0 && !*helped && !slices.ContainsFunc(args, isLongHelp) {
		fmt.Fprintf(e.stderr, "%s: a command is required: create, message, get or watch\n", jobsCmdName)
		code = cli.ExitUsage
	}
	return cmd, code, done
}

func isLongHelp(arg string) bool { return arg == "--help-long" || arg == "--help-man" }

func (e *jobsEnv) failf(code int, format string, args ...any) int {
	fmt.Fprintf(e.stderr, jobsCmdName+": "+format+"\n", args...)
	return code
}

func (e *jobsEnv) run(args []string) int {
	var o jobsOptions
	cmd, code, done := e.parse(args, &o)
	if done {
		return code
	}

	prompt, code := e.checkLocally(cmd, &o)
	if code != cli.ExitOK {
		return code
	}
	key, err := cli.ReadKey(o.KeyFile, e.getenv)
	if err != nil {
		return e.failf(cli.ExitCodeOf(err), "%v", err)
	}
	client, release, err := cli.NewClient(o.APIURL, key, o.RequestTimeout, 0)
	if err != nil {
		// ValidateKey's messages describe the key without quoting it.
		return e.failf(cli.ExitUsage, "%v", err)
	}
	defer release()

	ctx := context.Background()
	switch cmd {
	case "create":
		return e.create(ctx, client, &o, prompt)
	case "message":
		job, err := client.SendMessage(ctx, o.ProjectID, o.jobID, prompt)
		if err != nil {
			return e.apiFail(err, opMessage, o.ProjectID, o.jobID)
		}
		return e.printJob(o.output, job)
	case "get":
		job, err := client.GetJob(ctx, o.ProjectID, o.jobID)
		if err != nil {
			return e.apiFail(err, opGet, o.ProjectID, o.jobID)
		}
		return e.printJob(o.output, job)
	case "watch":
		return e.watch(ctx, client, &o)
	}
	return e.failf(cli.ExitUsage, "unknown command %q", cmd)
}

func (e *jobsEnv) checkLocally(cmd string, o *jobsOptions) (prompt string, code int) {
	if err := checkJobsArgs(cmd, o); err != nil {
		return "", e.failf(cli.ExitUsage, "%v", err)
	}
	var err error
	switch cmd {
	case "create":
		prompt, err = e.readPrompt(o.createPrompt)
		if err == nil && o.track != "" {
			err = checkTrackDir(o.track)
		}
	case "message":
		prompt, err = e.readPrompt(o.messagePrompt)
	case "watch":
		if o.interval <= 0 || o.watchTimeout <= 0 {
			err = errors.New("--interval and --timeout must be positive")
		}
	}
	if err != nil {
		return "", e.failf(cli.ExitCodeOf(err), "%v", err)
	}
	if err := cli.CheckRequestTimeout(o.RequestTimeout); err != nil {
		return "", e.failf(cli.ExitUsage, "%v", err)
	}
	if err := cli.CheckAPIURL(o.APIURL); err != nil {
		return "", e.failf(cli.ExitUsage, "%v", err)
	}
	return prompt, cli.ExitOK
}

func (e *jobsEnv) create(ctx context.Context, client *mintlify.Client, o *jobsOptions, prompt string) int {
	job, err := client.CreateJob(ctx, o.ProjectID, prompt)
	if err != nil {
		return e.apiFail(err, opCreate, o.ProjectID, "")
	}
	code := e.printJob(o.output, job)
	if o.track != "" {
		return e.track(o, job, code)
	}
	return code
}

// track's manual fallback quotes every argument, and is left out when the API's id fails the id
// rules: it could not be followed, and would be pasted into a shell.
func (e *jobsEnv) track(o *jobsOptions, job *mintlify.Job, code int) int {
	shown := mintlify.EscapeText(job.ID)
	if err := mintlify.CheckID(job.ID); err != nil {
		return e.failf(cli.ExitError, "job %s was created but is NOT tracked: the API returned an id that is not a valid job id (%v), so the exporter could not follow it", shown, err)
	}
	// Job ids are unique only within a project, and the exporter may follow several.
	line := o.ProjectID + "/" + job.ID
	if err := trackfile.Append(o.track, line); err != nil {
		advice := "add the line " + mintlify.EscapeText(line) + " to it by hand"
		if cmd, ok := cli.ShellCommand("echo", line); ok {
			if file, ok := cli.ShellCommand(o.track); ok {
				advice = "add it by hand: " + cmd + " >> " + file
			}
		}
		return e.failf(cli.ExitError, "job %s was created but is NOT tracked: %v; %s", shown, err, advice)
	}
	return code
}

func (e *jobsEnv) watch(ctx context.Context, client *mintlify.Client, o *jobsOptions) int {
	deadline := e.now().Add(o.watchTimeout)
	var last mintlify.Observation
	for {
		wait := o.interval
		obs, err := mintlify.PollJob(ctx, client, o.ProjectID, o.jobID)
		switch {
		case obs.NotFound:
			return e.failf(cli.ExitError, "%s", jobNotFound(o.ProjectID, o.jobID))
		case err != nil && !mintlify.Classify(err).Transient():
			return e.apiFail(err, opGet, o.ProjectID, o.jobID)
		case err != nil:
			// A hiccup must not end a long watch.
			if limited, after, ok := mintlify.IsRateLimited(err); limited && ok {
				wait = max(wait, after)
			}
			fmt.Fprintf(e.stderr, "%s: polling job %s: %s; trying again\n", jobsCmdName, o.jobID, describeAPIError(err, opGet, o.ProjectID, o.jobID))
		default:
			if shown, _ := obs.Since(last); shown {
				if code := e.printWatchLine(o.output, obs.Job); code != cli.ExitOK {
					return code
				}
			}
			last = obs
			switch obs.Job.Status {
			case mintlify.JobCompleted, mintlify.JobArchived:
				return cli.ExitOK
			case mintlify.JobFailed:
				return e.failf(cli.ExitError, "job %s failed", mintlify.EscapeText(obs.Job.ID))
			}
		}
		now := e.now()
		if !now.Before(deadline) {
			state := "could not be read"
			if last.Job != nil {
				state = "is still " + string(last.Job.Status)
			}
			return e.failf(cli.ExitTimeout, "timed out after %s: job %s %s", o.watchTimeout, o.jobID, state)
		}
		if err := e.sleep(ctx, min(wait, deadline.Sub(now))); err != nil {
			return e.failf(cli.ExitError, "watching job %s: %v", o.jobID, err)
		}
	}
}

// checkJobsArgs refuses ids that could not be one API path segment, naming the flag or argument.
func checkJobsArgs(cmd string, o *jobsOptions) error {
	if err := mintlify.CheckID(o.ProjectID); err != nil {
		return fmt.Errorf("--mintlify.project-id: %w", err)
	}
	if cmd == "message" || cmd == "get" || cmd == "watch" {
		if err := mintlify.CheckID(o.jobID); err != nil {
			return fmt.Errorf("job id argument: %w", err)
		}
	}
	if err := config.CheckAPIURL(o.APIURL); err != nil {
		return fmt.Errorf("--mintlify.api-url %w", err)
	}
	return nil
}
