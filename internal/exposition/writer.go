package exposition

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"

	dto "github.com/prometheus/client_model/go"

	"github.com/prometheus/common/expfmt"
)

// Writer writes a scrape in name order; consecutive live families go out together.
type Writer struct {
	w    io.Writer
	gz   bool
	enc  expfmt.Encoder // into bufs.pending; made once a scrape, not once a family
	bufs *scrapeBuffers
	err  error
}

type scrapeBuffers struct {
	pending bytes.Buffer // live families encoded, not yet written
	framed  []byte       // pending as a gzip member
}

var scrapeBufferPool = sync.Pool{New: func() any { return new(scrapeBuffers) }}

// maxPooledBuffer keeps a rare large scrape's buffers from staying resident.
const maxPooledBuffer = 1 << 20

// NewWriter writes to w, each family gzip-framed when gz.
func NewWriter(w io.Writer, gz bool, format expfmt.Format) *Writer {
	bufs := scrapeBufferPool.Get().(*scrapeBuffers)
	return &Writer{w: w, gz: gz, enc: expfmt.NewEncoder(&bufs.pending, format), bufs: bufs}
}

// Cached writes a pre-rendered family as stored.
func (f *Writer) Cached(fam Family) {
	f.flush()
	if f.err != nil {
		return
	}
	if f.gz {
		_, f.err = f.w.Write(fam.Gzip)
		return
	}
	_, f.err = f.w.Write(fam.Text)
}

// Err is the first write error; after one, nothing more is written.
func (f *Writer) Err() error { return f.err }

// Live encodes a family gathered for this scrape.
func (f *Writer) Live(mf *dto.MetricFamily) {
	if f.err == nil {
		f.err = f.enc.Encode(mf)
	}
}

// flush frames live families uncompressed: they change every scrape, and a checksum costs less
// than a compressor (BenchmarkHTTPScrape).
func (f *Writer) flush() {
	p := &f.bufs.pending
	if f.err != nil || p.Len() == 0 {
		return
	}
	defer p.Reset()
	if !f.gz {
		_, f.err = f.w.Write(p.Bytes())
		return
	}
	f.bufs.framed, f.err = writeStoredGzip(f.w, f.bufs.framed, p.Bytes())
}

// Close writes what is pending and gives the buffers back.
func (f *Writer) Close() error {
	f.flush()
	if f.bufs.pending.Cap() <= maxPooledBuffer && cap(f.bufs.framed) <= maxPooledBuffer {
		f.bufs.pending.Reset()
		scrapeBufferPool.Put(f.bufs)
	}
	f.bufs = nil
	return f.err
}

// AcceptsGzip tells whether an Accept-Encoding header takes gzip with a q-value above 0.
func AcceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		return q > 0
	}
	return false
}
