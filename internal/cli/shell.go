package cli

import (
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// ShellCommand joins args into a command line for an operator to paste,
// each argument in POSIX shell single quotes (a quote inside one becomes
// '\”), so no argument can add a command, a redirection or a variable.
// ok is false when an argument holds a control or unprintable character:
// such a command cannot be shown as it is without sending that character
// to the terminal, so callers print no command then.
func ShellCommand(args ...string) (cmd string, ok bool) {
	quoted := make([]string, len(args))
	for i, a := range args {
		if mintlify.EscapeText(a) != a {
			return "", false
		}
		quoted[i] = ShellQuote(a)
	}
	return strings.Join(quoted, " "), true
}

// ShellQuote is s in POSIX shell single quotes.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
