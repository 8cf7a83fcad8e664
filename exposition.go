package main

import (
	"bytes"
	"compress/gzip"
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
	data, release, err := s.exporter.Rendered(format)
	defer release()
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
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	out := &familyWriter{w: w, gz: gz, format: format}
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
	out.flush()
	if out.err != nil {
		s.log.Debug("error writing metrics", "err", out.err)
	}
}

// familyWriter writes families one after another. Live families in a run
// are encoded into one buffer and go out together (as one gzip member when
// the client takes gzip, compressed fast: they are small); a rendered
// family goes out as stored.
type familyWriter struct {
	w       io.Writer
	gz      bool
	format  expfmt.Format
	pending bytes.Buffer
	err     error
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
		f.err = expfmt.NewEncoder(&f.pending, f.format).Encode(mf)
	}
}

// flush writes the live families encoded so far.
func (f *familyWriter) flush() {
	if f.err != nil || f.pending.Len() == 0 {
		return
	}
	defer f.pending.Reset()
	if !f.gz {
		_, f.err = f.w.Write(f.pending.Bytes())
		return
	}
	zw := gzipPool.Get().(*gzip.Writer)
	defer gzipPool.Put(zw)
	zw.Reset(f.w)
	if _, f.err = zw.Write(f.pending.Bytes()); f.err == nil {
		f.err = zw.Close()
	}
}

var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

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
