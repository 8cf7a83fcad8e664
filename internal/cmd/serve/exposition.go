package serve

import (
	"log/slog"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/internal/exposition"
)

// metricsHandler writes the text format from the data families rendered at the last change merged with the live ones;
// other formats go through promhttp, with the same bytes (TestRenderedExpositionIsByteIdentical).
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
	gz := exposition.AcceptsGzip(r.Header.Get("Accept-Encoding"))
	data, err := s.render.Rendered(format, !gz)
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
	out := exposition.NewWriter(w, gz, format)
	i, j := 0, 0
	for (i < len(live) || j < len(data)) && out.Err() == nil {
		if j >= len(data) || (i < len(live) && live[i].GetName() < data[j].Name) {
			if only == nil || only[live[i].GetName()] {
				out.Live(live[i])
			}
			i++
			continue
		}
		if only == nil || only[data[j].Name] {
			out.Cached(data[j])
		}
		j++
	}
	if err := out.Close(); err != nil {
		s.log.Debug("error writing metrics", "err", err)
	}
}

// limitInFlight answers 503 beyond n concurrent scrapes, as promhttp's MaxRequestsInFlight does.
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
