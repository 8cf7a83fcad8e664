// Package exposition is the Prometheus side of /metrics: it renders the
// exporter's data series once per change, for every scrape until the
// next one, and writes a scrape from those rendered families merged with
// the live ones gathered per scrape.
//
// The data series (every kind of the table, internal/kind.All) and the
// bookkeeping of their walks change only when a refresh lands,
// once every few minutes, while Prometheus scrapes every few seconds. So
// they are not rebuilt per scrape: they are encoded once per change, for
// the format asked (with a gzip copy of each family), and a scrape writes
// those bytes and encodes only the few live series (health, budget, jobs,
// the exporter's own). This is the shape of kube-state-metrics' metrics
// store.
package exposition

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Family is one metric family of the data series, encoded in one
// exposition format, as a gzip member (gzip members concatenate into one
// stream) and, when asked for, as plain bytes.
type Family struct {
	Name string
	Text []byte
	Gzip []byte
}

// Renderer renders the data series of a collector, once per change of
// its key, for every scrape until the next change.
type Renderer struct {
	data prometheus.Collector
	key  func() string // changes whenever data collects something else

	mu   sync.Mutex
	last string // key and format of cur
	cur  *renderSet
	reg  *prometheus.Registry // holds data
}

// NewRenderer renders data; key must change whenever data would collect
// other series (a refresh landed, data went stale, a reload).
func NewRenderer(data prometheus.Collector, key func() string) *Renderer {
	return &Renderer{data: data, key: key}
}

// renderSet is one render. Prometheus always asks for gzip, so the set is
// kept as gzip members only: the plain text, seven to ten times their
// size, is made from them (inflated, so the bytes are the same) the first
// time a client that does not take gzip scrapes, and kept until the data
// changes. A set is never changed once a scrape may hold it: making the
// plain text gives a new family list.
type renderSet struct {
	fams    []Family // Text set once plain is made
	spans   []textSpan
	textLen int
	text    []byte // nil until a plain scrape asked
	gz      []byte
}

// textSpan is where a family's text is in the whole plain exposition.
type textSpan struct{ t0, t1 int }

// makePlain inflates the gzip members into the plain text, once per set.
// The caller holds renderCache.mu. Scrapes that hold the set's earlier
// family list keep it: the list with Text is a new one.
func (r *renderSet) makePlain() error {
	if r.text != nil {
		return nil
	}
	text := make([]byte, r.textLen)
	if r.textLen > 0 {
		// An empty cache has no gzip member to inflate: its text is empty.
		zr, err := gzip.NewReader(bytes.NewReader(r.gz))
		if err != nil {
			return fmt.Errorf("inflating the rendered series: %w", err)
		}
		if _, err := io.ReadFull(zr, text); err != nil {
			return fmt.Errorf("inflating the rendered series: %w", err)
		}
	}
	fams := slices.Clone(r.fams)
	for i, sp := range r.spans {
		fams[i].Text = text[sp.t0:sp.t1:sp.t1]
	}
	r.text, r.fams = text, fams
	return nil
}

// Rendered returns the data families encoded in format, sorted by name,
// rendering them again only if the data changed since the last call (a
// refresh landed, data went stale, a reload) or the format differs. Their
// Gzip is always set, their Text only when plain is true. The bytes are
// never changed: a newer render replaces them, and the garbage collector
// frees them once no scrape holds them.
func (c *Renderer) Rendered(format expfmt.Format, plain bool) ([]Family, error) {
	key := c.key() + " " + string(format)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil || c.last != key {
		set, err := c.render(format)
		if err != nil {
			return nil, err
		}
		c.cur, c.last = set, key
	}
	set := c.cur
	if plain {
		if err := set.makePlain(); err != nil {
			return nil, err
		}
	}
	return set.fams, nil
}

// render gathers the data series and encodes each family as a gzip
// member of its text. The caller holds c.mu.
func (c *Renderer) render(format expfmt.Format) (*renderSet, error) {
	if c.reg == nil {
		c.reg = prometheus.NewRegistry()
		c.reg.MustRegister(c.data)
	}
	mfs, err := c.reg.Gather()
	if err != nil {
		return nil, err
	}
	var text, gz bytes.Buffer
	type span struct {
		name           string
		t0, t1, g0, g1 int
	}
	spans := make([]span, 0, len(mfs))
	zw := gzip.NewWriter(nil)
	for _, mf := range mfs {
		sp := span{name: mf.GetName(), t0: text.Len(), g0: gz.Len()}
		if err := expfmt.NewEncoder(&text, format).Encode(mf); err != nil {
			return nil, fmt.Errorf("encoding %s: %w", mf.GetName(), err)
		}
		sp.t1 = text.Len()
		zw.Reset(&gz)
		if _, err := zw.Write(text.Bytes()[sp.t0:sp.t1]); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		sp.g1 = gz.Len()
		spans = append(spans, sp)
	}
	mfs = nil
	set := &renderSet{gz: bytes.Clone(gz.Bytes()), textLen: text.Len()}
	gb := set.gz
	for _, sp := range spans {
		set.fams = append(set.fams, Family{Name: sp.name, Gzip: gb[sp.g0:sp.g1:sp.g1]})
		set.spans = append(set.spans, textSpan{sp.t0, sp.t1})
	}
	if text.Len() > freeAfterBytes {
		// Rendering a big site leaves garbage several times the size of
		// its exposition (the series built to encode it). It happens once
		// per data change, minutes apart: hand that memory back to the OS
		// now rather than keep the process at its peak until the
		// scavenger gets to it.
		text, gz = bytes.Buffer{}, bytes.Buffer{}
		debug.FreeOSMemory()
	}
	return set, nil
}

// freeAfterBytes is the rendered size above which a render is followed by
// returning the freed memory to the OS.
const freeAfterBytes = 4 << 20
