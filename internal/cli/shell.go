package cli

import (
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// ShellCommand single-quotes each argument so none can add a command; ok is false for a control character, which
// would reach the terminal, so callers print no command then.
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
