package offheap

import (
	"bytes"
	"testing"
)

func TestCopyAndFree(t *testing.T) {
	src := bytes.Repeat([]byte("mintlify_page_views 1\n"), 10000)
	b := Copy(src)
	if !bytes.Equal(b.Bytes(), src) {
		t.Fatal("copy differs")
	}
	src[0] = 'X' // the buffer is a copy, not a view
	if b.Bytes()[0] != 'm' {
		t.Fatal("the buffer shares memory with its source")
	}
	b.Free()
	if b.Bytes() != nil {
		t.Fatal("a freed buffer still has bytes")
	}
	b.Free() // harmless
	if e := Copy(nil); len(e.Bytes()) != 0 {
		t.Fatal("empty copy not empty")
	}
}

func TestAllocIsZeroedAndWritable(t *testing.T) {
	b := Alloc(1 << 20)
	defer b.Free()
	if len(b.Bytes()) != 1<<20 || bytes.IndexFunc(b.Bytes(), func(r rune) bool { return r != 0 }) >= 0 {
		t.Fatal("not 1 MiB of zeros")
	}
	b.Bytes()[1<<20-1] = 'x'
	if b.Bytes()[1<<20-1] != 'x' {
		t.Fatal("not writable")
	}
}
