// Package offheap holds large, long-lived byte buffers outside the Go
// heap. The exporter keeps its rendered exposition (tens of MiB for a big
// site) for minutes; on the heap it would double the garbage collector's
// goal and so the process's footprint, although the collector never needs
// to scan it. Off the heap it costs its size and no more.
//
// A Buffer must be freed exactly once, after its last reader is done;
// callers count their readers (see collector.Rendered).
package offheap

// Buffer is a byte slice allocated off the Go heap where the platform
// allows it (mmap on Unix), else on the heap.
type Buffer struct {
	b      []byte
	mapped bool
}

// Copy returns a Buffer holding a copy of p.
func Copy(p []byte) *Buffer {
	b := Alloc(len(p))
	copy(b.b, p)
	return b
}

// Alloc returns a Buffer of n zero bytes, for the caller to fill.
func Alloc(n int) *Buffer {
	if n == 0 {
		return &Buffer{}
	}
	if b, ok := alloc(n); ok {
		return &Buffer{b: b, mapped: true}
	}
	return &Buffer{b: make([]byte, n)}
}

// Bytes is the buffer's content. It must not be used after Free.
func (b *Buffer) Bytes() []byte { return b.b }

// Free releases the memory. The buffer is empty afterwards.
func (b *Buffer) Free() {
	if b.mapped {
		release(b.b)
	}
	b.b, b.mapped = nil, false
}
