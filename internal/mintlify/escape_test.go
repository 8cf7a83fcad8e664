package mintlify

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestEscapeText: control characters (C0, DEL, C1), other unprintable
// runes and invalid UTF-8 are written as escapes; printable text is kept.
func TestEscapeText(t *testing.T) {
	for in, want := range map[string]string{
		"job_1":             "job_1",
		"héllo wörld ✓ \\x": "héllo wörld ✓ \\x",
		"\x1b]0;title\a":    `\x1b]0;title\x07`,
		"\x1b[2J":           `\x1b[2J`,
		"a\rb\nc\td":        `a\rb\nc\td`,
		"\x00\x7f":          `\x00\x7f`,
		"\u009b31m":         `\u009b31m`,
		"\xff\xfe":          `\xff\xfe`,
		"\x9b":              `\x9b`,
		"left\u202eright":   `left\u202eright`,
		"\x1b]8;;http://e.x\x1b\\l\x1b]8;;\x1b\\": `\x1b]8;;http://e.x\x1b\l\x1b]8;;\x1b\`,
		"\U000e0001": `\U000e0001`,
		"\ufffd":     "\ufffd",
	} {
		if got := EscapeText(in); got != want {
			t.Errorf("EscapeText(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzEscapeText: the output is valid UTF-8 with no control or
// unprintable character but the space, and printable input is unchanged.
func FuzzEscapeText(f *testing.F) {
	for _, s := range []string{"", "job_1", "\x1b[31m", "\xc2\x9b", "\xff", "a\u2028b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := EscapeText(s)
		if !utf8.ValidString(out) || strings.ContainsFunc(out, func(r rune) bool { return r != ' ' && !unicode.IsPrint(r) }) {
			t.Fatalf("EscapeText(%q) = %q", s, out)
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, needsEscape) && out != s {
			t.Fatalf("printable %q changed to %q", s, out)
		}
	})
}

// An error message from the API shows its control characters escaped, so
// an operator can see what was sent, and none reaches the terminal.
func TestAPIErrorEscapesControls(t *testing.T) {
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"error":"bad \u001b]0;owned\u0007 \u009b2J","details":[{"message":"line\r\nnext"}]}`)
	}))
	_, err := c.GetJob(context.Background(), "p", "j")
	if err == nil {
		t.Fatal("no error")
	}
	want := `mintlify get_job: HTTP 400: bad \x1b]0;owned\x07 \u009b2J (line\r\nnext)`
	if err.Error() != want {
		t.Fatalf("error %q\nwant   %q", err, want)
	}
}
