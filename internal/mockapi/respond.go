package mockapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
)

// response is built in memory so body faults can rewrite it and the status can be logged.
type response struct {
	status int
	header http.Header
	body   []byte
	// declaredLen > len(body) is sent as Content-Length, so the body is truncated.
	declaredLen int
}

func (res *response) write(w http.ResponseWriter) {
	maps.Copy(w.Header(), res.header)
	w.Header().Set("Content-Length", strconv.Itoa(max(len(res.body), res.declaredLen)))
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body)
}

func newResponse(status int, contentType string, body []byte) *response {
	h := http.Header{}
	h.Set("Content-Type", contentType)
	return &response{status: status, header: h, body: body}
}

// jsonResponse does not escape <, > and &, as the vendor's Node.js backend does not.
func jsonResponse(status int, v any) *response {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("mockapi: cannot encode response: " + err.Error())
	}
	return newResponse(status, "application/json; charset=utf-8", bytes.TrimRight(b.Bytes(), "\n"))
}

type errorDetail struct {
	Message string `json:"message"`
}

type analyticsError struct {
	Error   string        `json:"error"`
	Details []errorDetail `json:"details,omitempty"`
}

type agentError struct {
	Error string `json:"error"`
}

func errorResponse(status int, analytics bool, msg string, details ...string) *response {
	if !analytics {
		return jsonResponse(status, agentError{Error: msg})
	}
	e := analyticsError{Error: msg}
	for _, d := range details {
		e.Details = append(e.Details, errorDetail{Message: d})
	}
	return jsonResponse(status, e)
}

// appendString passes invalid UTF-8 through, unlike encoding/json, so ExtraRows can send it.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// rowsBody writes the vendor's field order by hand, so paths go out byte for byte.
func rowsBody(key string, totals Counts, rows []Row, hasMore bool) []byte {
	b := appendRowsHead(make([]byte, 0, 64+len(rows)*96), key, totals)
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(append(b, `{"path":`...), r.Path)
		b = append(appendCounts(append(b, ','), r.Human, r.AI, r.Total), '}')
	}
	return appendRowsTail(b, hasMore)
}

// endlessBody writes rowsBody's bytes without building the rows (150 000 rows are 8 MiB).
func endlessBody(totals Counts, offset, n int) []byte {
	const row = `{"path":"/endless/0000000000","human":1,"ai":0,"total":1}`
	b := appendRowsHead(make([]byte, 0, 64+n*(len(row)+1)), "views", totals)
	var digits [20]byte
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		d := strconv.AppendInt(digits[:0], int64(offset+i), 10)
		b = append(b, `{"path":"/endless/`...)
		for range 10 - len(d) {
			b = append(b, '0')
		}
		b = append(b, d...)
		b = append(b, `","human":1,"ai":0,"total":1}`...)
	}
	return appendRowsTail(b, true)
}

func appendRowsHead(b []byte, key string, totals Counts) []byte {
	b = appendCounts(append(b, `{"totals":{`...), totals.Human, totals.AI, totals.Total)
	b = append(append(b, `},"`...), key...)
	return append(b, `":[`...)
}

func appendCounts(b []byte, human, ai, total int64) []byte {
	b = strconv.AppendInt(append(b, `"human":`...), human, 10)
	b = strconv.AppendInt(append(b, `,"ai":`...), ai, 10)
	return strconv.AppendInt(append(b, `,"total":`...), total, 10)
}

func appendRowsTail(b []byte, hasMore bool) []byte {
	b = append(b, `],"hasMore":`...)
	b = strconv.AppendBool(b, hasMore)
	return append(b, '}')
}
