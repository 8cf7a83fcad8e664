package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kingpin/v2"
)

type terminated struct{ code int }

// Parse parses args; kingpin's help and usage would exit the process, so they unwind here with done set.
func Parse(app *kingpin.Application, args []string, stdout, stderr io.Writer, name string, usageCode int) (cmd string, code int, done bool) {
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
	cmd, err := app.Parse(joinDashValues(app, args))
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v (try --help)\n", name, err)
		return "", usageCode, true
	}
	return cmd, 0, false
}

// joinDashValues turns "--output -" into "--output=-": kingpin's lexer takes a lone "-" for a nameless short flag.
func joinDashValues(app *kingpin.Application, args []string) []string {
	long, short := map[string]bool{}, map[string]bool{}
	var add func(flags []*kingpin.FlagModel, cmds []*kingpin.CmdModel)
	add = func(flags []*kingpin.FlagModel, cmds []*kingpin.CmdModel) {
		for _, f := range flags {
			if f.IsBoolFlag() {
				continue
			}
			long["--"+f.Name] = true
			if f.Short != 0 {
				short["-"+string(f.Short)] = true
			}
		}
		for _, c := range cmds {
			add(c.Flags, c.Commands)
		}
	}
	m := app.Model()
	add(m.Flags, m.Commands)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if i+1 < len(args) && args[i+1] == "-" && !strings.Contains(a, "=") {
			switch {
			case long[a]:
				out = append(out, a+"=-")
				i++
				continue
			case short[a]:
				out = append(out, a+"-")
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
