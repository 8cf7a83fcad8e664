package serve

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/collector"
)

// metricsHandler serves /metrics. The text format, what Prometheus asks
// for, is written from the data families the exporter rendered when its
// data last changed (plain or as gzip members), merged by name with the
// live families gathered now from the one registry. Other formats
// (protobuf, OpenMetrics when asked for) go through promhttp, gathering
// the live and the data series alike; the bytes are the same either way
// (TestRenderedExpositionIsByteIdentical).
func (s *server) metricsHandler() http.Handler {
	fallback := promhttp.HandlerFor(prometheus.Gatherers{s.registry, s.data}, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(s.log.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
	})
	fast := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultAcceptedFormats()...)
		if format.FormatType() != expfmt.TypeTextPlain {
			fallback.ServeHTTP(w, r)
			return
		}
		s.writeText(w, r, format)
	})
	var h http.Handler = fast
	if s.f.maxRequests > 0 {
		h = limitInFlight(h, s.f.maxRequests)
	}
	if !s.f.disableSelf {
		h = promhttp.InstrumentMetricHandler(s.registry, h)
	}
	return h
}

func (s *server) writeText(w http.ResponseWriter, r *http.Request, format expfmt.Format) {
	live, err := s.registry.Gather()
	if err != nil {
		s.log.Error("error gathering metrics", "err", err)
		if len(live) == 0 {
			http.Error(w, "An error has occurred while gathering metrics:\n\n"+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	data, err := s.exporter.Rendered(format, !gz)
	if err != nil {
		s.log.Error("error rendering the cached series", "err", err)
		data = nil // the live series still go out
	}
	var only map[string]bool
	if names := r.URL.Query()["name[]"]; len(names) > 0 {
		only = map[string]bool{}
		for _, n := range names {
			only[n] = true
		}
	}
	h := w.Header()
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", string(format))
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	out := newFamilyWriter(w, gz, format)
	// Both lists are sorted by name and share no name: merge them.
	i, j := 0, 0
	for (i < len(live) || j < len(data)) && out.err == nil {
		if j >= len(data) || (i < len(live) && live[i].GetName() < data[j].Name) {
			if only == nil || only[live[i].GetName()] {
				out.live(live[i])
			}
			i++
			continue
		}
		if only == nil || only[data[j].Name] {
			out.cached(data[j])
		}
		j++
	}
	out.close()
	if out.err != nil {
		s.log.Debug("error writing metrics", "err", out.err)
	}
}

// familyWriter writes families one after another. Live families in a run
// are encoded into one buffer and go out together (as one stored gzip
// member when the client takes gzip); a rendered family goes out as
// stored.
type familyWriter struct {
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

func newFamilyWriter(w io.Writer, gz bool, format expfmt.Format) *familyWriter {
	bufs := scrapeBufferPool.Get().(*scrapeBuffers)
	return &familyWriter{w: w, gz: gz, enc: expfmt.NewEncoder(&bufs.pending, format), bufs: bufs}
}

func (f *familyWriter) cached(fam collector.Family) {
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

func (f *familyWriter) live(mf *dto.MetricFamily) {
	if f.err == nil {
		f.err = f.enc.Encode(mf)
	}
}

// flush writes the live families encoded so far. They are a few dozen
// kilobytes that change every scrape: they go out framed as a gzip member
// but not compressed, which costs a checksum instead of a compressor
// (BenchmarkHTTPScrape; the data members beside them were compressed once,
// when rendered).
func (f *familyWriter) flush() {
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

// close writes what is pending and gives the buffers back.
func (f *familyWriter) close() {
	f.flush()
	if f.bufs.pending.Cap() <= maxPooledBuffer && cap(f.bufs.framed) <= maxPooledBuffer {
		f.bufs.pending.Reset()
		scrapeBufferPool.Put(f.bufs)
	}
	f.bufs = nil
}

// acceptsGzip tells whether an Accept-Encoding header takes gzip (with a
// q-value above 0).
func acceptsGzip(header string) bool {
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

// limitInFlight answers 503 beyond n concurrent scrapes, as promhttp's
// MaxRequestsInFlight does.
func limitInFlight(next http.Handler, n int) http.Handler {
	sem := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
			next.ServeHTTP(w, r)
		default:
			http.Error(w, "Limit of concurrent requests reached ("+strconv.Itoa(n)+"), try again later.", http.StatusServiceUnavailable)
		}
	})
}
