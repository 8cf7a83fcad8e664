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

// Writer writes a scrape: families one after another, in name order. Live families in a run
// are encoded into one buffer and go out together (as one stored gzip
// member when the client takes gzip); a rendered family goes out as
// stored.
type Writer struct {
	w    io.Writer
	gz   bool
	enc  expfmt.Encoder // into bufs.pending; made once a scrape, not once a family
	bufs *scrapeBuffers
	err  error
}

// scrapeBuffers are a scrape's working buffers, kept between scrapes so
// that a scrape does not grow new ones.
type scrapeBuffers struct {
	pending bytes.Buffer // live families encoded, not yet written
	framed  []byte       // pending as a gzip member
}

var scrapeBufferPool = sync.Pool{New: func() any { return new(scrapeBuffers) }}

// maxPooledBuffer bounds what a scrape gives back to the pool, so that a
// rare large scrape (thousands of live series) does not stay resident.
const maxPooledBuffer = 1 << 20

// NewWriter writes to w in format, as gzip when gz.
func NewWriter(w io.Writer, gz bool, format expfmt.Format) *Writer {
	bufs := scrapeBufferPool.Get().(*scrapeBuffers)
	return &Writer{w: w, gz: gz, enc: expfmt.NewEncoder(&bufs.pending, format), bufs: bufs}
}

// Cached writes a rendered family.
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

// Err is the first error writing met; after one, nothing more is written.
func (f *Writer) Err() error { return f.err }

// Live writes a family gathered for this scrape.
func (f *Writer) Live(mf *dto.MetricFamily) {
	if f.err == nil {
		f.err = f.enc.Encode(mf)
	}
}

// flush writes the live families encoded so far. They are a few dozen
// kilobytes that change every scrape: they go out framed as a gzip member
// but not compressed, which costs a checksum instead of a compressor
// (BenchmarkHTTPScrape; the data members beside them were compressed once,
// when rendered).
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

// Close writes what is pending and gives the buffers back; Err tells
// whether anything failed.
func (f *Writer) Close() error {
	f.flush()
	if f.bufs.pending.Cap() <= maxPooledBuffer && cap(f.bufs.framed) <= maxPooledBuffer {
		f.bufs.pending.Reset()
		scrapeBufferPool.Put(f.bufs)
	}
	f.bufs = nil
	return f.err
}

// AcceptsGzip tells whether an Accept-Encoding header takes gzip (with a
// q-value above 0).
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
