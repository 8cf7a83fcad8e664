// Package exposition writes /metrics. The data series change only when a refresh lands, so they
// are encoded and gzipped once per change; a scrape writes those bytes and encodes only the few
// live series (the shape of kube-state-metrics' store).
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

// Family is one data family in one format: a gzip member (members concatenate) and plain text.
type Family struct {
	Name string
	Text []byte
	Gzip []byte
}

// Renderer renders a collector's series once per change of its key.
type Renderer struct {
	data prometheus.Collector
	key  func() string // changes whenever data collects something else

	mu   sync.Mutex
	last string // key and format of cur
	cur  *renderSet
	reg  *prometheus.Registry // holds data
}

// NewRenderer's key must change whenever data would collect other series (refresh, stale, reload).
func NewRenderer(data prometheus.Collector, key func() string) *Renderer {
	return &Renderer{data: data, key: key}
}

// renderSet keeps gzip members only, as Prometheus asks for gzip: the plain text, 7-10 times
// larger, is inflated on the first plain scrape. A set never changes once a scrape may hold it.
type renderSet struct {
	fams    []Family // Text set once plain is made
	spans   []textSpan
	textLen int
	text    []byte // nil until a plain scrape asked
	gz      []byte
}

type textSpan struct{ t0, t1 int }

// makePlain makes a new family list, so scrapes holding the old one keep it. The caller locks.
func (r *renderSet) makePlain() error {
	if r.text != nil {
		return nil
	}
	text := make([]byte, r.textLen)
	if r.textLen > 0 {
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

// Rendered returns the families sorted by name, rendering again only on a new key or format.
// Gzip is always set, Text only when plain; the bytes are never changed, only replaced.
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

// render encodes each family as a gzip member of its text. The caller holds c.mu.
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
		// A big render leaves garbage several times its size, minutes apart: return it now.
		text, gz = bytes.Buffer{}, bytes.Buffer{}
		debug.FreeOSMemory()
	}
	return set, nil
}

const freeAfterBytes = 4 << 20
