package exposition

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
)

// TestStoredGzipIsGzip reads what appendStoredGzip writes back through
// compress/gzip, alone and concatenated with a compressed member, at the
// sizes around a stored block's limit.
func TestStoredGzipIsGzip(t *testing.T) {
	for _, n := range []int{0, 1, maxStoredBlock - 1, maxStoredBlock, maxStoredBlock + 1, 3*maxStoredBlock + 7} {
		p := []byte(strings.Repeat("mintlify_up{project=\"docs\"} 1\n", n/30+1)[:n])
		var compressed bytes.Buffer
		zw := gzip.NewWriter(&compressed)
		_, _ = zw.Write([]byte("# HELP a b\n"))
		_ = zw.Close()
		stream := append(appendStoredGzip(nil, p), compressed.Bytes()...)
		zr, err := gzip.NewReader(bytes.NewReader(stream))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if want := append(bytes.Clone(p), "# HELP a b\n"...); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: read back %d bytes, not what was written", n, len(got))
		}
		if blocks := max(1, (n+maxStoredBlock-1)/maxStoredBlock); len(appendStoredGzip(nil, p)) != 10+5*blocks+n+8 {
			t.Fatalf("%d bytes: %d bytes of framing, want %d", n, len(appendStoredGzip(nil, p))-n, 10+5*blocks+8)
		}
	}
}
