package mintlify

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// One rule for a path label, in the exporter and the backfill: read as raw bytes (rawText, so paths differing
// only in invalid UTF-8 stay two), escaped (EscapeText), refused when empty or too long (PathLabelOK). Paths
// whose escaped forms are equal are one series: a walk adds their views and counts Walk.Merged.

// PathLabel is EscapeText(raw); ok is false when that is no usable label value (PathLabelOK).
func PathLabel(raw string) (label string, ok bool) {
	label = EscapeText(raw)
	return label, PathLabelOK(label)
}

// PathLabelOK reports a usable escaped path: not empty ("" is no label to Prometheus), at most 1,024 bytes,
// escaped; paths stored before escaping fail it when the escaping changes them, and are dropped.
func PathLabelOK(p string) bool {
	return p != "" && len(p) <= MaxPathBytes && EscapeText(p) == p
}

// rawText keeps a JSON string's invalid UTF-8 bytes and lone surrogates, which encoding/json makes U+FFFD.
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

func unquoteRaw(b []byte) (string, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", errNotString
	}
	b = b[1 : len(b)-1]
	if bytes.IndexByte(b, '\\') < 0 {
		// No escape, nearly every path: this runs for each row of a walk.
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

// appendRune writes a lone surrogate as the three bytes UTF-8 would give it, escaped later.
func appendRune(out []byte, r rune) []byte {
	if utf16.IsSurrogate(r) {
		return append(out, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
	}
	return utf8.AppendRune(out, r)
}
