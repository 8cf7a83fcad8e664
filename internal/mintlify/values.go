package mintlify

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPathBytes bounds every path label, once escaped (PathLabel): the
// paths of views, visitors and feedback rows and a conversation's page. A
// longer one is no page anyone reads on a dashboard, and a 10 kB label
// value is a cost to every scrape and to Prometheus' index: it is dropped
// and counted instead.
const MaxPathBytes = 1024

// MaxCategoryRunes bounds a conversation's category: longer ones are cut
// to this many runes and counted.
const MaxCategoryRunes = 64

// Uncategorized is the category of a conversation the upstream gave none
// (a null queryCategory, or one that is empty once sanitised).
const Uncategorized = "uncategorized"

// nullable is a field the API always sends but may send as null: set
// tells a missing key (an error) from a null (a value).
type nullable[T any] struct {
	set   bool
	null  bool
	value T
}

func (n *nullable[T]) UnmarshalJSON(b []byte) error {
	n.set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		n.null = true
		return nil
	}
	return json.Unmarshal(b, &n.value)
}

// PagePath is the path of a page the API names by a path or a full URL
// (a conversation's pageUrl, a feedback entry's path): the URL's path
// alone, without scheme, host, query or fragment (which may carry a
// visitor's data), starting with "/", made a label value as every path
// label is (PathLabel). ok is false when no usable path remains: not a
// URL, not valid UTF-8, or longer than MaxPathBytes once escaped.
func PagePath(raw string) (path string, ok bool) {
	if raw == "" || !utf8.ValidString(raw) || len(raw) > 8*MaxPathBytes {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Opaque != "" {
		return "", false
	}
	path = u.Path
	if path == "" {
		if u.Host == "" {
			return "", false // only a query or a fragment
		}
		path = "/"
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	// The rule of every path label (PathLabel): control characters
	// escaped, empty or over MaxPathBytes once escaped refused.
	if path, ok = PathLabel(path); !ok {
		return "", false
	}
	return path, true
}

// Category makes an upstream category a tidy label value: valid UTF-8,
// control characters dropped, runs of white space folded to one space,
// trimmed, at most MaxCategoryRunes runes (cut says it was longer).
// An empty result is Uncategorized.
func Category(raw string) (category string, cut bool) {
	var b strings.Builder
	n, space := 0, false
	for _, r := range raw { // stops at the cut: a long raw value is not copied
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case r == utf8.RuneError || unicode.IsControl(r) || !unicode.IsPrint(r):
			continue // invalid UTF-8 among them
		}
		if space {
			if n+1 >= MaxCategoryRunes {
				cut = true
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= MaxCategoryRunes {
			cut = true
			break
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return Uncategorized, cut
	}
	return b.String(), cut
}

// validCursor bounds a cursor the API hands back before it is sent again
// or saved: printable ASCII, at most maxCursorBytes.
const maxCursorBytes = 256

func validCursor(c string) bool {
	if c == "" || len(c) > maxCursorBytes {
		return false
	}
	for i := range len(c) {
		if c[i] <= ' ' || c[i] > '~' {
			return false
		}
	}
	return true
}
