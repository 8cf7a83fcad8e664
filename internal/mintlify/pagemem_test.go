package mintlify

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkConversationsFullPage decodes a page of 100 conversations whose
// answers fill the body bound (about 39 KiB each, 3.9 MiB in all) and
// reports what the decoded page keeps: the answers are skipped, so it
// holds about 100 small rows, not the body. B/op is about the body once
// (read into a buffer of its Content-Length) beside the page's setup.
func BenchmarkConversationsFullPage(b *testing.B) {
	answer := strings.Repeat("An answer that goes on and on. ", 1300) // ~39 KiB
	rows := make([]string, ConversationsPageSize)
	for i := range rows {
		rows[i] = strings.Replace(conversationJSON(`"billing"`, `"https://docs.example.com/docs/a"`, "answer"), secretText+`","response":"`+secretText, secretText+`","response":"`+answer, 1)
	}
	body := []byte(`{"conversations":[` + strings.Join(rows, ",") + `],"nextCursor":null,"hasMore":false}`)
	if len(body) > ConversationsMaxBodyBytes {
		b.Fatalf("page of %d bytes over the bound", len(body))
	}
	c, _ := newTestClient(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}))
	b.ResetTimer()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	var kept uint64
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := c.Conversations(context.Background(), "p", day, ConversationsPageSize, "")
		if err != nil || len(p.Rows) != ConversationsPageSize {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		kept += after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
		runtime.KeepAlive(p)
	}
	b.ReportMetric(float64(len(body))/(1<<20), "body_MiB")
	b.ReportMetric(float64(kept)/float64(b.N)/1024, "kept_KiB")
}
