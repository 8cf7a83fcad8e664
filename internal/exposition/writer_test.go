package exposition

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"gzip": true, "": false, "identity": false, "gzip;q=0": false, "br, gzip;q=0.5": true,
		"GZIP": true, "deflate": false, "x-gzip": false,
	} {
		if got := AcceptsGzip(h); got != want {
			t.Errorf("AcceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte("a"))
	_ = zw.Close()
	zw = gzip.NewWriter(&b)
	_, _ = zw.Write([]byte("b"))
	_ = zw.Close()
	zr, _ := gzip.NewReader(&b)
	if got, _ := io.ReadAll(zr); string(got) != "ab" {
		t.Fatalf("gzip members read as %q: concatenated members must read as one stream", got)
	}
}
