package collector

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeQuery(t *testing.T) {
	for in, want := range map[string]string{
		"  How   to\tDeploy\n":    "how to deploy",
		"API\x00key\x1b":          "apikey",
		"bad\xffutf8":             "badutf8",
		"":                        "",
		"   ":                     "",
		strings.Repeat("ab", 100): strings.Repeat("ab", 32),
		"Ünïcödé":                 "ünïcödé",
	} {
		if got := SanitizeQuery(in); got != want {
			t.Errorf("SanitizeQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSanitizeQuery(f *testing.F) {
	for _, s := range []string{"how to deploy", "  \t", "\xff\xfe", strings.Repeat("x ", 100), "日本語の検索"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := SanitizeQuery(s)
		if !utf8.ValidString(q) || utf8.RuneCountInString(q) > maxQueryRunes || strings.TrimSpace(q) != q || strings.Contains(q, "  ") {
			t.Fatalf("SanitizeQuery(%q) = %q", s, q)
		}
		if SanitizeQuery(q) != q {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, q, SanitizeQuery(q))
		}
	})
}
