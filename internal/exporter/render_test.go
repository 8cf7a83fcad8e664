package exporter_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/mintlify-exporter/mintlify_exporter/internal/exposition"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mockapi"
)

// Tests of the rendered exposition: kept as gzip members, replaced
// whole, never changed under a reader.

// A render replaced while a scrape still writes it stays intact: renders
// are never changed, only replaced.
func TestRenderOutlivesItsReaders(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	render := exposition.NewRenderer(e.exp.Data(), e.exp.DataKey)
	e.scrape()
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	first, err := render.Rendered(format, true)
	if err != nil || len(first) == 0 {
		t.Fatalf("no render: %v", err)
	}
	var copies [][]byte
	for _, f := range first {
		copies = append(copies, bytes.Clone(f.Text), bytes.Clone(f.Gzip))
	}
	again, _ := render.Rendered(format, true)
	if &again[0].Text[0] != &first[0].Text[0] {
		t.Fatal("rendered again although nothing changed")
	}
	e.clock.Advance(4 * time.Hour) // the data goes stale, then a refresh lands
	e.scrape()
	second, _ := render.Rendered(format, true)
	if len(second) > 0 && &second[0].Text[0] == &first[0].Text[0] {
		t.Fatal("not rendered again after the data changed")
	}
	for i, f := range first {
		if !bytes.Equal(f.Text, copies[2*i]) || !bytes.Equal(f.Gzip, copies[2*i+1]) {
			t.Fatalf("family %s changed under its reader", f.Name)
		}
	}
}

// The rendered series are kept as gzip members; the plain text is made
// from them only when a client asks for it, and is their inflated bytes.
func TestPlainIsMadeOnlyWhenAskedFor(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 600}}})
	render := exposition.NewRenderer(e.exp.Data(), e.exp.DataKey)
	e.scrape()
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	zipped, err := render.Rendered(format, false)
	if err != nil || len(zipped) == 0 {
		t.Fatalf("no render: %v", err)
	}
	for _, f := range zipped {
		if f.Text != nil || len(f.Gzip) == 0 {
			t.Fatalf("family %s: %d plain bytes made for a gzip scrape, %d gzip bytes", f.Name, len(f.Text), len(f.Gzip))
		}
	}
	plain, err := render.Rendered(format, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != len(zipped) {
		t.Fatalf("%d families plain, %d gzip", len(plain), len(zipped))
	}
	for i, f := range plain {
		zr, err := gzip.NewReader(bytes.NewReader(f.Gzip))
		if err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Text) == 0 || !bytes.Equal(f.Text, want) {
			t.Fatalf("family %s: the plain text is not its gzip member inflated", f.Name)
		}
		if zipped[i].Text != nil {
			t.Fatalf("family %s: the list an earlier scrape holds was changed", f.Name)
		}
	}
}

// A plain (non-gzip) scrape before any data is cached gets an empty
// rendering, not an error: there is no gzip member to inflate.
func TestPlainRenderOfAnEmptyCache(t *testing.T) {
	e := newEnv(t, oneProject, envOpts{sites: map[string]mockapi.Site{"proj-docs": {Seed: 1, Paths: 10}}})
	render := exposition.NewRenderer(e.exp.Data(), e.exp.DataKey)
	format := expfmt.NewFormat(expfmt.TypeTextPlain)
	for _, plain := range []bool{true, false} {
		fams, err := render.Rendered(format, plain)
		if err != nil {
			t.Fatalf("plain %v: %v", plain, err)
		}
		for _, f := range fams {
			if len(f.Text) != 0 {
				t.Errorf("plain %v: family %s has %d bytes before any refresh", plain, f.Name, len(f.Text))
			}
		}
	}
}
