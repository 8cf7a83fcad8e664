package mintlify

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// rowsUpTo refuses a rows array once it exceeds the limit: a hostile page at the 8 MiB cap would otherwise
// build some 80 MiB of rows to throw away. limit 0 is unbounded; seen tells a present array from a missing key.
type rowsUpTo[T any] struct {
	key   string
	limit int
	seen  bool
	rows  []T
}

func newRows[T any](key string, limit int) *rowsUpTo[T] {
	return &rowsUpTo[T]{key: key, limit: limit}
}

type tooManyRows struct {
	key   string
	limit int
}

func (e *tooManyRows) Error() string {
	return fmt.Sprintf("more %s rows than the page limit of %d", e.key, e.limit)
}

// UnmarshalJSON: a JSON null never reaches it (encoding/json sets the pointer to nil).
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

func (r *rowsUpTo[T]) present() *[]T {
	if r == nil || !r.seen {
		return nil
	}
	return &r.rows
}
