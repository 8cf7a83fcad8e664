package mintlify

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeText escapes API text (ids, messages, links) for a terminal or log: controls, invalid bytes and
// unprintable runes become \t, \xNN or \uNNNN; printable text and backslashes are unchanged. JSON stays exact.
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

// needsEscape: U+FFFD itself is printable; invalid bytes are told apart by their size.
func needsEscape(r rune) bool {
	return r != ' ' && (unicode.IsControl(r) || !unicode.IsPrint(r))
}
