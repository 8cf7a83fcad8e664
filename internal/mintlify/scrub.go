package mintlify

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxUpstreamText bounds each piece of upstream text in an error or log line; longer is cut and marked.
const MaxUpstreamText = 256

const maxDetails = 5

const redacted = "[REDACTED]"

// tokenRE: a proxy may echo the Authorization header, and any Mintlify-style key is redacted, not only ours.
var tokenRE = regexp.MustCompile(`(?i)\bbearer\s+\S+|mint_\S*`)

// ScrubText redacts key, Bearer tokens and mint_ words, escapes (EscapeText), and cuts to MaxUpstreamText.
func ScrubText(s, key string) string {
	// Scrub before cutting, so no readable half of a key survives; bound the work first, with room for a key
	// that straddles the cut.
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
