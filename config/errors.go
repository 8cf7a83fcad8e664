package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Errors start with the file's line, and yaml's messages get the line's text and a "did you mean", so the setting is in sight.

type fieldError struct {
	line    int
	at      string
	subject string
	msg     string
	cause   error // what msg says, when it came from elsewhere (KeyError)
}

func (e *fieldError) Unwrap() error { return e.cause }

func (e *fieldError) Error() string {
	s := e.msg
	if e.subject != "" {
		s = e.subject + ": " + s
	}
	if e.line > 0 {
		s = "line " + strconv.Itoa(e.line) + ": " + s
	}
	return s
}

// nodeErrorf returns a *yaml.TypeError, after which yaml goes on decoding, so every bad value is reported at once.
func nodeErrorf(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, fmt.Sprintf(format, args...))}}
}

func located(err error, src []byte, top *yaml.Node) error {
	var out []error
	var te *yaml.TypeError
	switch j, joined := err.(interface{ Unwrap() []error }); {
	case errors.As(err, &te):
		for _, m := range te.Errors {
			out = append(out, errors.New(withContext(m, src)))
		}
	case joined:
		lines := settingLines(top)
		for _, e := range j.Unwrap() {
			if fe, ok := e.(*fieldError); ok && fe.line == 0 {
				fe.line = lines.of(fe.at)
			}
			out = append(out, e)
		}
	default:
		out = []error{errors.New(withContext(err.Error(), src))}
	}
	slices.SortStableFunc(out, func(a, b error) int { return lineOf(a.Error()) - lineOf(b.Error()) })
	return errors.Join(out...)
}

func lineOf(msg string) int {
	var n int
	if _, err := fmt.Sscanf(strings.TrimPrefix(msg, "yaml: "), "line %d:", &n); err != nil {
		return 0
	}
	return n
}

func withContext(msg string, src []byte) string {
	n := lineOf(msg)
	if n == 0 {
		return msg
	}
	if _, rest, _ := strings.Cut(msg, ": field "); rest != "" {
		if name, typ, ok := strings.Cut(rest, " not found in type "); ok {
			if s := suggest(name, fieldsOf[typ]); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
		}
	}
	if lines := strings.Split(string(src), "\n"); n <= len(lines) {
		msg += " (at `" + strings.TrimSpace(lines[n-1]) + "`)"
	}
	// An API key pasted into the wrong field, or any control character, must not reach a log line.
	return mintlify.ScrubText(msg, "")
}

type settingPaths map[string]int

func settingLines(top *yaml.Node) settingPaths {
	paths := settingPaths{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if _, ok := paths[path]; !ok && path != "" {
			paths[path] = n.Line
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], strings.TrimPrefix(path+"."+n.Content[i].Value, "."))
			}
		case yaml.SequenceNode:
			for i, e := range n.Content {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	if top != nil {
		walk(top, "")
	}
	return paths
}

func (p settingPaths) of(path string) int {
	for ; path != ""; path = path[:max(strings.LastIndexAny(path, ".["), 0)] {
		if l, ok := p[path]; ok {
			return l
		}
	}
	return 0
}

var fieldsOf = func() map[string][]string {
	m := map[string][]string{}
	for _, v := range []any{topLevel{}, global{}, key{}, project{}} {
		t := reflect.TypeOf(v)
		for i := range t.NumField() {
			m[t.String()] = append(m[t.String()], strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0])
		}
	}
	return m
}()

func suggest(name string, fields []string) string {
	norm := strings.NewReplacer("_", "", "-", "")
	best, bestDist := "", 3
	for _, f := range fields {
		if norm.Replace(strings.ToLower(f)) == norm.Replace(strings.ToLower(name)) {
			return f
		}
		if d := editDistance(name, f); d < bestDist {
			best, bestDist = f, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+boolInt(a[i-1] != b[j-1]))
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
