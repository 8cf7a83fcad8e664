package mintlify

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// rowsUpTo is a JSON array of rows that is refused as soon as it holds one
// row more than the page limit asked for, before the rest is decoded. The
// API never sends more than the limit, so such a page is broken whatever
// else it holds; a hostile one at the body cap (8 MiB, about 180 000
// short rows) would otherwise be built in full, some 80 MiB of rows, only
// to be thrown away. With limit 0 the array is not bounded.
//
// The field holding it is set before decoding (the limit must be known);
// seen tells an array that was there from a missing key.
type rowsUpTo[T any] struct {
	key   string
	limit int
	seen  bool
	rows  []T
}

func newRows[T any](key string, limit int) *rowsUpTo[T] {
	return &rowsUpTo[T]{key: key, limit: limit}
}

// tooManyRows refuses a page with more rows than its limit.
type tooManyRows struct {
	key   string
	limit int
}

func (e *tooManyRows) Error() string {
	return fmt.Sprintf("more %s rows than the page limit of %d", e.key, e.limit)
}

// UnmarshalJSON decodes the array row by row. (A JSON null never reaches
// it: encoding/json sets the field's pointer to nil instead.)
func (r *rowsUpTo[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fmt.Errorf("field %q is not an array", r.key)
	}
	r.rows = r.rows[:0]
	for dec.More() {
		if r.limit > 0 && len(r.rows) == r.limit {
			return &tooManyRows{key: r.key, limit: r.limit}
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("field %q: %w", r.key, err)
		}
		r.rows = append(r.rows, v)
	}
	r.seen = true
	return nil
}

// present returns the rows, or nil when the array was missing or null.
func (r *rowsUpTo[T]) present() *[]T {
	if r == nil || !r.seen {
		return nil
	}
	return &r.rows
}
