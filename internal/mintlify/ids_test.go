package mintlify

import (
	"net/url"
	"path"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []string{"proj-docs", "job_123", "665f1c2e9b1d4a0012ab34cd", "a.b", "...", "é", strings.Repeat("x", MaxIDLen)} {
		if err := CheckID(ok); err != nil {
			t.Errorf("CheckID(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "/", "a\\b", "a b", "a\tb", "a\nb", "a\x00b", "a?b", "a#b", "a%2Fb", "\xff", "a\u200bb", strings.Repeat("x", MaxIDLen+1)} {
		if err := CheckID(bad); err == nil {
			t.Errorf("CheckID(%q) = nil, want an error", bad)
		}
	}
}

// FuzzCheck: whatever CheckID accepts is one URL path segment that a
// path-normalising proxy would leave where it is, and fits in a log line.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"proj-docs", "job_1", ".", "..", "a/../b", "%2e%2e", "a\nb", "\xff", "x\u2028y", "..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if CheckID(id) != nil {
			return
		}
		if len(id) == 0 || len(id) > MaxIDLen {
			t.Fatalf("accepted %q of length %d", id, len(id))
		}
		seg := url.PathEscape(id)
		p := "/v2/agent/" + seg + "/job"
		if path.Clean(p) != p {
			t.Fatalf("accepted %q: path %q is changed by normalisation to %q", id, p, path.Clean(p))
		}
		if strings.Contains(seg, "/") {
			t.Fatalf("accepted %q: escaped segment %q holds a slash", id, seg)
		}
		u, err := url.Parse("https://api.example" + p)
		if err != nil || u.Path != "/v2/agent/"+id+"/job" {
			t.Fatalf("accepted %q: URL %q does not round-trip (%v)", id, p, err)
		}
	})
}
