package mintlify

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func viewsBody(rows int) string {
	var b strings.Builder
	b.WriteString(`{"totals":{"human":1,"ai":1,"total":2},"views":[`)
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"path":"/p%d","human":1,"ai":0,"total":1}`, i)
	}
	b.WriteString(`],"hasMore":true}`)
	return b.String()
}

// A page far over its limit is refused after limit+1 rows: decoding it
// allocates about what a page of the limit does, not what the whole body
// would. (Counted allocations, not time: the verdict does not depend on
// the machine.)
func TestRowsBeyondTheLimitAreNotDecoded(t *testing.T) {
	const limit = 250
	atLimit := []byte(viewsBody(limit))
	hostile := []byte(viewsBody(100_000)) // about 5 MiB, under the body cap
	decode := func(body []byte) error {
		w := wireViewsPage{Views: newRows[wireViewRow]("views", limit)}
		return decodeJSON(body, &w)
	}
	if err := decode(atLimit); err != nil {
		t.Fatalf("a page of the limit: %v", err)
	}
	err := decode(hostile)
	var tm *tooManyRows
	if !errors.As(err, &tm) || err.Error() != "more views rows than the page limit of 250" {
		t.Fatalf("hostile page: %v", err)
	}
	base := testing.AllocsPerRun(3, func() { _ = decode(atLimit) })
	got := testing.AllocsPerRun(3, func() { _ = decode(hostile) })
	// Without the bound the hostile page costs 400 times the rows of one
	// at the limit; with it, about the same.
	t.Logf("allocations: a page at the limit %.0f, the hostile page %.0f", base, got)
	if got > 2*base {
		t.Fatalf("hostile page: %.0f allocations, a page at the limit %.0f", got, base)
	}
}

// The array's absence, null, wrong type and the unbounded case.
func TestRowsUpToShapes(t *testing.T) {
	decode := func(body string, limit int) (*wireViewsPage, error) {
		w := &wireViewsPage{Views: newRows[wireViewRow]("views", limit)}
		return w, decodeJSON([]byte(body), w)
	}
	const totals = `"totals":{"human":1,"ai":1,"total":2}`
	for _, tc := range []struct{ name, body, want string }{
		{"missing", `{` + totals + `,"hasMore":false}`, `missing required field "views"`},
		{"null", `{` + totals + `,"views":null,"hasMore":false}`, `missing required field "views"`},
		{"not an array", `{` + totals + `,"views":{"a":1},"hasMore":false}`, `field "views" is not an array`},
		{"bad row", `{` + totals + `,"views":[{"path":1}],"hasMore":false}`, `field "views"`},
		{"row missing a count", `{` + totals + `,"views":[{"path":"/a","human":1,"ai":1}],"hasMore":false}`, `missing required field "views[0].total"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode(tc.body, 10)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
	w, err := decode(`{`+totals+`,"views":[],"hasMore":false}`, 10)
	if err != nil || len(w.page.Rows) != 0 || w.page.HasMore {
		t.Fatalf("empty array: %d rows, %v", len(w.page.Rows), err)
	}
	w, err = decode(viewsBody(300), 0)
	if err != nil || len(w.page.Rows) != 300 {
		t.Fatalf("limit 0 is unbounded: %d rows, %v", len(w.page.Rows), err)
	}
}

// decodeJSON tells a truncated body, trailing data and a bad byte inside
// apart, and takes trailing whitespace.
func TestDecodeJSONErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"id":"a"`, "truncated JSON body"},
		{`{"id":"a"}   `, ""},
		{`{"id":"a"} {"id":"b"}`, "trailing data after JSON body"},
		{`{"id":"a"}x`, "trailing data after JSON body"},
		{`{"id":x}`, "invalid JSON body: invalid character 'x'"},
		{`  `, "empty body"},
	} {
		var out struct {
			ID string `json:"id"`
		}
		err := decodeJSON([]byte(tc.body), &out)
		if tc.want == "" {
			if err != nil || out.ID != "a" {
				t.Errorf("%q: %v, id %q", tc.body, err, out.ID)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.body, err, tc.want)
		}
	}
}
