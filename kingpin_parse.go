package main

import (
	"fmt"
	"io"

	"github.com/alecthomas/kingpin/v2"
)

// terminated carries kingpin's exit status out of Parse (see parseKingpin).
type terminated struct{ code int }

// parseKingpin parses args with app, the command line of a subcommand
// named name. Kingpin's help and usage paths call Terminate, which would
// exit the process; here they unwind back to the caller instead, with
// done set and kingpin's status in code. A parse error is printed to
// stderr and returned as usageCode, done. Help and usage go to stdout,
// errors to stderr.
func parseKingpin(app *kingpin.Application, args []string, stdout, stderr io.Writer, name string, usageCode int) (cmd string, code int, done bool) {
	app.UsageWriter(stdout)
	app.ErrorWriter(stderr)
	app.Terminate(func(code int) { panic(terminated{code}) })
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		t, ok := r.(terminated)
		if !ok {
			panic(r)
		}
		cmd, code, done = "", t.code, true
	}()
	cmd, err := app.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v (try --help)\n", name, err)
		return "", usageCode, true
	}
	return cmd, 0, false
}
