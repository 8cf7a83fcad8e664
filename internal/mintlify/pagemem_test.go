package mintlify

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// fullPage serves a full page of ConversationsPageSize (1 000)
// conversations whose answers are n times 31 bytes long, and returns a
// client of it and the page's size.
func fullPage(tb testing.TB, n int) (*Client, int) {
	answer := strings.Repeat("An answer that goes on and on. ", n)
	rows := make([]string, ConversationsPageSize)
	for i := range rows {
		row := conversationJSON(`"billing"`, `"https://docs.example.com/docs/a"`, "answer")
		row = strings.Replace(row, "01JD0000000000000000000000", "01JD00000000000000000"+strconv.Itoa(10000+i), 1)
		rows[i] = strings.Replace(row, secretText+`","response":"`+secretText, secretText+`","response":"`+answer, 1)
	}
	body := []byte(`{"conversations":[` + strings.Join(rows, ",") + `],"nextCursor":null,"hasMore":false}`)
	if len(body) > ConversationsMaxBodyBytes {
		tb.Fatalf("page of %d bytes over the bound", len(body))
	}
	c, _ := newTestClient(tb, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	return c, len(body)
}

// readFullPage reads the page once and returns the bytes allocated
// meanwhile (by the client and the test server) and those the decoded
// page keeps.
func readFullPage(tb testing.TB, c *Client) (allocated, kept uint64) {
	var before, read, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := c.Conversations(context.Background(), "p", day, ConversationsPageSize, "")
	runtime.ReadMemStats(&read)
	if err != nil || len(p.Rows) != ConversationsPageSize {
		tb.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	return read.TotalAlloc - before.TotalAlloc, after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
}

// BenchmarkConversationsFullPage decodes a full page of long answers
// (about 39 KiB each, 38.7 MiB in all) and
// reports what it costs in memory: alloc_per_body is the bytes allocated
// while reading it over the body's size, kept_KiB what the decoded page
// holds. The page is decoded as a stream and the answers are skipped, so
// both stay far below the body: the decoder holds one row at a time, the
// page about 1 000 small rows.
func BenchmarkConversationsFullPage(b *testing.B) {
	c, size := fullPage(b, 1300)
	b.ResetTimer()
	b.ReportAllocs()
	b.SetBytes(int64(size))
	var kept, allocated uint64
	for range b.N {
		a, k := readFullPage(b, c)
		allocated, kept = allocated+a, kept+k
	}
	b.ReportMetric(float64(size)/(1<<20), "body_MiB")
	b.ReportMetric(float64(allocated)/float64(b.N)/float64(size), "alloc_per_body")
	b.ReportMetric(float64(kept)/float64(b.N)/1024, "kept_KiB")
}

// TestConversationsPageMemoryIsBounded: a full page of answers of 8 KiB
// (8.1 MiB) is read allocating a part of its body that does not follow
// it: at most 2 MiB (the rows kept and the decoder's buffer, about 1 MiB;
// the test server's writing is counted too), and under a quarter of the
// body. The benchmark says how small for longer answers.
func TestConversationsPageMemoryIsBounded(t *testing.T) {
	c, size := fullPage(t, 265)
	allocated, kept := readFullPage(t, c)
	if allocated > 2<<20 || allocated > uint64(size)/4 || kept > 512<<10 {
		t.Errorf("reading a page of %d bytes allocated %d (%.3f of it) and kept %d", size, allocated, float64(allocated)/float64(size), kept)
	}
}
