package mintlify

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The rule for a page path as a label value, the same in the exporter and
// the backfill, for every kind with a path label:
//
//   - the path is read from the API's JSON as the bytes it holds (see
//     rawText): invalid UTF-8 is not replaced by U+FFFD, so two paths that
//     differ only there stay two;
//   - it is escaped with EscapeText: control characters (NUL, ESC, ...)
//     and invalid bytes become \x1b-style escapes, so none reaches a label
//     value, a terminal or a dashboard raw;
//   - PathLabelOK then refuses what cannot be a label: an empty path
//     (Prometheus reads path="" as no label at all) and one longer than
//     1,024 bytes once escaped. A refused path is counted as dropped.
//
// Two upstream paths whose escaped forms are equal (a path holding the
// text `\xff` and one holding the byte 0xff) are one series: a walk adds
// their views together and counts the merge (Walk.Merged), so no count is
// lost.

// PathLabel is raw, a path as the API sent it, as the exporter writes it
// in a label: EscapeText(raw). ok is false when that is no usable label
// value (see PathLabelOK).
func PathLabel(raw string) (label string, ok bool) {
	label = EscapeText(raw)
	return label, PathLabelOK(label)
}

// PathLabelOK reports whether p, an escaped path, may be a label value:
// not empty, at most 1,024 bytes, and escaped (valid UTF-8 without
// control characters). Paths from an older state file or journal, read
// before paths were escaped, fail it when they hold what the escaping now
// changes, and are dropped.
func PathLabelOK(p string) bool {
	return p != "" && len(p) <= MaxPathBytes && EscapeText(p) == p
}

// rawText is a JSON string decoded to the bytes it holds: unlike
// encoding/json, which replaces each invalid UTF-8 byte with U+FFFD, it
// keeps them, and a \u escape of a lone surrogate is kept as its three
// bytes (themselves invalid UTF-8). EscapeText then writes each as \xNN,
// so distinct upstream strings stay distinct.
type rawText string

func (t *rawText) UnmarshalJSON(b []byte) error {
	s, err := unquoteRaw(b)
	if err != nil {
		return err
	}
	*t = rawText(s)
	return nil
}

var errNotString = errors.New("not a JSON string")

// unquoteRaw decodes a JSON string token (encoding/json has checked its
// syntax) keeping invalid UTF-8 bytes as they are.
func unquoteRaw(b []byte) (string, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", errNotString
	}
	b = b[1 : len(b)-1]
	if bytes.IndexByte(b, '\\') < 0 {
		// No escape (nearly every path): the bytes are the string. This
		// runs for each row of a walk, up to 100 000 a site.
		return string(b), nil
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(b) {
			return "", errNotString
		}
		i++
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n, err := unicodeEscape(b[i+1:])
			if err != nil {
				return "", err
			}
			i += n
			out = appendRune(out, r)
		default:
			return "", errNotString
		}
	}
	return string(out), nil
}

// unicodeEscape reads the four hex digits after \u in b, and a second
// \uXXXX when they are a high surrogate that one completes; n is the
// bytes read.
func unicodeEscape(b []byte) (r rune, n int, err error) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 4 {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[:4]), 16, 32)
		return rune(v), err == nil
	}
	r, ok := hex(b)
	if !ok {
		return 0, 0, errNotString
	}
	if utf16.IsSurrogate(r) && len(b) >= 10 && b[4] == '\\' && b[5] == 'u' {
		if r2, ok := hex(b[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 10, nil
			}
		}
	}
	return r, 4, nil
}

// appendRune appends r as UTF-8, or a lone surrogate as the three bytes
// UTF-8 would give it (invalid UTF-8, escaped later like any other).
func appendRune(out []byte, r rune) []byte {
	if utf16.IsSurrogate(r) {
		return append(out, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
	}
	return utf8.AppendRune(out, r)
}
