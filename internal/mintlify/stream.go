package mintlify

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Answers whose rows carry visitor text (conversations, feedback entries)
// are decoded as a stream: the body is read through a json.Decoder, one
// row at a time, and each row keeps only the fields the exporter counts,
// so neither the body nor the text is ever held whole. What a page costs
// in memory is its kept rows (about 100 bytes each) and the decoder's
// buffer, which holds the row being read: it follows the longest row, not
// the page (BenchmarkConversationsFullPage).

// streamDecoder is an answer decoded from its body as the body is read.
type streamDecoder interface {
	decodeStream(dec *json.Decoder) error
}

// decodeStreamFrom decodes one answer from rd.
func decodeStreamFrom(rd io.Reader, s streamDecoder) error {
	return s.decodeStream(json.NewDecoder(rd))
}

// readStream decodes the 2xx answer of r from resp's body, which it
// reads up to limit bytes. Like readBody's caller, it returns status 0 for
// a body that could not be read whole (retried), and resp's status with a
// *ResponseError for one that cannot be used (not retried).
func (c *Client) readStream(r request, req *http.Request, resp *http.Response, limit int64, start time.Time) (int, []byte, http.Header, error) {
	status := resp.StatusCode
	rd := &countingReader{r: io.LimitReader(resp.Body, limit+1)}
	var err error
	if resp.ContentLength > limit {
		rd.n = limit + 1 // refused unread, as readBody does
	} else {
		err = decodeStreamFrom(rd, r.stream)
	}
	elapsed := time.Since(start)
	c.observe(r.endpoint, status, elapsed)
	c.logger.Debug("API request", "endpoint", r.endpoint, "method", r.method, "path", req.URL.Path, "status", status, "duration", elapsed)
	switch {
	case rd.n > limit:
		return status, nil, nil, &ResponseError{Endpoint: r.endpoint, StatusCode: status,
			Reason: fmt.Sprintf("body exceeds %d bytes", limit)}
	case rd.err != nil:
		if req.Context().Err() != nil || isTimeout(rd.err) {
			return 0, nil, nil, fmt.Errorf("mintlify %s: reading response (HTTP %d): %w", r.endpoint, status, rd.err)
		}
		return 0, nil, nil, &ResponseError{Endpoint: r.endpoint, StatusCode: status,
			Reason: "reading body: " + ScrubText(rd.err.Error(), c.key.Reveal())}
	case err != nil:
		// Validation messages may quote upstream values.
		return status, nil, nil, &ResponseError{Endpoint: r.endpoint, StatusCode: status,
			Reason: ScrubText(streamError(err).Error(), c.key.Reveal())}
	}
	return status, nil, resp.Header, nil
}

// countingReader counts the bytes read and keeps the first error other
// than io.EOF: a body cut short, not a JSON one.
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

// streamError says what a decoding error means, in the words decodeJSON
// uses for a whole body.
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

// skipValue reads a JSON value and keeps nothing of it.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// decodeCursorPage reads the answer of a cursor-paged endpoint from dec:
// one object whose key field holds the rows, at most limit of them, each
// decoded into a W (whose fields are the ones counted: every other key of
// the row is skipped unread) and handed to row; nextCursor and hasMore,
// checked against each other (see cursorFields); any other key skipped.
// It returns the cursor ("" when nothing follows) and hasMore.
func decodeCursorPage[W any](dec *json.Decoder, field string, limit int, row func(i int, w *W) error) (string, bool, error) {
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
		return "", false, errors.New("empty body")
	} else if err != nil {
		return "", false, err
	} else if t != json.Delim('{') {
		return "", false, errors.New("the body is not a JSON object")
	}
	var f cursorFields
	for dec.More() {
		t, err := token()
		if err != nil {
			return "", false, err
		}
		var key string
		if key, _ = t.(string); key == field {
			if f.rows {
				return "", false, fmt.Errorf("field %q given twice", field)
			}
			f.rows = true
			err = decodeRows(dec, token, field, limit, row)
		} else {
			err = f.decode(dec, key)
		}
		if err != nil {
			return "", false, err
		}
	}
	if _, err := token(); err != nil { // the object's end
		return "", false, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false, errors.New("trailing data after JSON body")
	}
	return f.check(field)
}

// decodeRows reads the array of rows under field.
func decodeRows[W any](dec *json.Decoder, token func() (json.Token, error), field string, limit int, row func(int, *W) error) error {
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
		if err := row(i, &w); err != nil {
			return err
		}
	}
	_, err = token() // the array's end
	return err
}

// cursorFields are the paging fields of a cursor-paged answer.
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

// check says what every cursor-paged answer must hold: its rows, hasMore,
// and a nextCursor checked against hasMore: a page with more must say
// where they start, and the cursor must be one the client can send back
// (and a caller can save). It returns the cursor ("" when nothing
// follows, whatever the answer says) and hasMore.
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
