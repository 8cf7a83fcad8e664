package mintlify

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeText is the one escaping of text from the API (ids, models,
// repositories, links, error messages) before it reaches a terminal, a
// table or a line of an error or log: control characters (C0, DEL, C1) and
// other unprintable runes are written as escapes, so none is ever sent to
// the terminal. A tab, a newline and a carriage return become \t, \n and
// \r; other bytes below 0x80 and invalid UTF-8 bytes become \xNN; other
// unprintable runes (C1 controls, bidirectional overrides, separators)
// become \uNNNN. Printable text, the ASCII space included, is unchanged;
// a backslash is not doubled, so ordinary text reads as it was sent.
// JSON output does not use it: it stays exact.
func EscapeText(s string) string {
	i := strings.IndexFunc(s, needsEscape)
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf && needsEscape(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// needsEscape reports a rune EscapeText writes as an escape. U+FFFD itself
// is printable; invalid bytes are told apart by their size.
func needsEscape(r rune) bool {
	return r != ' ' && (unicode.IsControl(r) || !unicode.IsPrint(r))
}
