package mintlify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Rows carrying visitor text are decoded as a stream, a row at a time, keeping only the counted fields.

type streamDecoder interface {
	decodeStream(dec *json.Decoder) error
}

func decodeStreamFrom(rd io.Reader, s streamDecoder) error {
	return s.decodeStream(json.NewDecoder(rd))
}

// readStream returns status 0 for a body not read whole (retried), and a *ResponseError for an unusable one.
func (c *Client) readStream(r request, req *http.Request, resp *http.Response, limit int64, start time.Time) (int, []byte, http.Header, error) {
	status := resp.StatusCode
	rd := &countingReader{r: io.LimitReader(resp.Body, limit+1)}
	var err error
	if resp.ContentLength > limit {
		rd.n = limit + 1 // refused unread, as readBody does
	} else {
		err = decodeStreamFrom(rd, r.stream)
	}
	c.answered(r, req, status, start)
	switch {
	case rd.n > limit:
		return status, nil, nil, tooLarge(r, status, limit)
	case rd.err != nil:
		return 0, nil, nil, c.readError(r, req, status, rd.err)
	case err != nil:
		// Validation messages may quote upstream values.
		return status, nil, nil, &ResponseError{Endpoint: r.endpoint, StatusCode: status,
			Reason: ScrubText(streamError(err).Error(), c.o.Key.Reveal())}
	}
	return status, nil, resp.Header, nil
}

// countingReader keeps the first error other than io.EOF: a body cut short, not bad JSON.
type countingReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

func streamError(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("truncated JSON body")
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	return err
}

type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// decodeCursorPage decodes into p at most limit rows under field, each read into a W and made an R by row (other
// keys skipped unread), and the paging fields.
func decodeCursorPage[R CursorRow, W any](dec *json.Decoder, p *CursorPage[R], field string, limit int, row func(i int, w *W) (R, error)) error {
	started := false
	token := func() (json.Token, error) {
		t, err := dec.Token()
		if err == io.EOF && started {
			err = io.ErrUnexpectedEOF
		}
		started = true
		return t, err
	}
	if t, err := token(); err == io.EOF {
		return errors.New("empty body")
	} else if err != nil {
		return err
	} else if t != json.Delim('{') {
		return errors.New("the body is not a JSON object")
	}
	var f cursorFields
	for dec.More() {
		t, err := token()
		if err != nil {
			return err
		}
		var key string
		if key, _ = t.(string); key == field {
			if f.rows {
				return fmt.Errorf("field %q given twice", field)
			}
			f.rows = true
			err = decodeRows(dec, p, token, field, limit, row)
		} else {
			err = f.decode(dec, key)
		}
		if err != nil {
			return err
		}
	}
	if _, err := token(); err != nil { // the object's end
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after JSON body")
	}
	var err error
	p.NextCursor, p.HasMore, err = f.check(field)
	return err
}

func decodeRows[R CursorRow, W any](dec *json.Decoder, p *CursorPage[R], token func() (json.Token, error), field string, limit int, row func(int, *W) (R, error)) error {
	t, err := token()
	switch {
	case err != nil:
		return err
	case t == nil:
		return fmt.Errorf("missing required field %q", field) // null
	case t != json.Delim('['):
		return fmt.Errorf("field %q is not an array", field)
	}
	for i := 0; dec.More(); i++ {
		if i == limit {
			return &tooManyRows{key: field, limit: limit}
		}
		var w W
		if err := dec.Decode(&w); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return fmt.Errorf("field %q: %w", field, err)
		}
		r, err := row(i, &w)
		if err != nil {
			return err
		}
		p.Rows = append(p.Rows, r)
	}
	_, err = token() // the array's end
	return err
}

type cursorFields struct {
	rows    bool // the rows' array was there
	next    nullable[string]
	hasMore *bool
}

func (f *cursorFields) decode(dec *json.Decoder, key string) error {
	switch key {
	case "nextCursor":
		f.next = nullable[string]{}
		return dec.Decode(&f.next)
	case "hasMore":
		return dec.Decode(&f.hasMore)
	}
	return dec.Decode(&skipValue{})
}

// check: a page with more must say where they start, in a cursor the client can send back and a caller save.
func (f *cursorFields) check(field string) (string, bool, error) {
	switch {
	case !f.rows:
		return "", false, fmt.Errorf("missing required field %q", field)
	case f.hasMore == nil:
		return "", false, errors.New(`missing required field "hasMore"`)
	case !f.next.set:
		return "", false, errors.New(`missing required field "nextCursor"`)
	case !*f.hasMore:
		return "", false, nil
	case f.next.null || !validCursor(f.next.value):
		return "", false, fmt.Errorf(`field "nextCursor": hasMore is true but the cursor is null or unusable (empty, longer than %d bytes, or not printable ASCII)`, maxCursorBytes)
	}
	return f.next.value, true, nil
}
