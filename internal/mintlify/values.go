package mintlify

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxPathBytes bounds an escaped path label: a 10 kB label costs every scrape and Prometheus' index.
const MaxPathBytes = 1024

// MaxCategoryRunes bounds a conversation's category: longer ones are cut and counted.
const MaxCategoryRunes = 64

// Uncategorized is the category of a null or (once sanitised) empty queryCategory.
const Uncategorized = "uncategorized"

// nullable tells a missing key (an error) from a null (a value).
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

// PagePath is the path of a page named by a path or URL, without scheme, host, query or fragment (which may
// carry a visitor's data), made a label by PathLabel; ok is false when no usable path remains.
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
	if path, ok = PathLabel(path); !ok {
		return "", false
	}
	return path, true
}

// SourcePath is PagePath of an absolute http(s) URL with a host; the host is not kept (a site answers under
// its custom domain and its mintlify.app one alike).
func SourcePath(raw string) (path string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return PagePath(raw)
}

// Category makes an upstream category a tidy label value (cut says it was longer); empty becomes Uncategorized.
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

// maxCursorBytes bounds a cursor the API hands back before it is sent again or saved.
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
