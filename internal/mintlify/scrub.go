package mintlify

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxUpstreamText bounds, in bytes, each piece of upstream text (an error
// message, one detail, an unexpected value) that goes into an error or a
// log line. Longer text is cut and marked.
const MaxUpstreamText = 256

// maxDetails bounds how many "details" entries of an error body are kept.
const maxDetails = 5

const redacted = "[REDACTED]"

// tokenRE matches what looks like a credential in upstream text: a bearer
// token (an upstream or proxy echoing the Authorization header) and any
// Mintlify-style key, whatever the key the client holds.
var tokenRE = regexp.MustCompile(`(?i)\bbearer\s+\S+|mint_\S*`)

// ScrubText makes upstream text safe to log: every occurrence of key (the
// client's own API key), every "Bearer …" token and every "mint_…" word is
// replaced by [REDACTED]; control and unprintable characters and invalid
// UTF-8 are escaped (EscapeText); the result is at most MaxUpstreamText
// bytes plus a marker. key may be empty.
func ScrubText(s, key string) string {
	// Scrub before cutting, so a key cut in two cannot leave a readable
	// half, and bound the work first: text far past the cap cannot show
	// anyway, but a key straddling the cut must still be found, so keep
	// room for one.
	if lim := 4*MaxUpstreamText + 2*len(key) + 64; len(s) > lim {
		s = s[:lim]
	}
	if key != "" {
		s = strings.ReplaceAll(s, key, redacted)
	}
	s = tokenRE.ReplaceAllStringFunc(s, func(m string) string {
		if len(m) > 6 && strings.EqualFold(m[:6], "bearer") {
			return "Bearer " + redacted
		}
		return redacted
	})
	s = EscapeText(s)
	if len(s) > MaxUpstreamText {
		cut := MaxUpstreamText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…[truncated]"
	}
	return s
}
