package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An error in this package names the setting the way a user would find it
// in the file ("projects[1] \"blog\"", "global") and, when the file has it,
// the line. Decoding and validation cannot know both: a value's
// UnmarshalYAML has the line but not its index in the list, the validator
// has the index but no node. So both produce partial errors, and Parse
// fills in the missing half from an index of the YAML tree.

// fieldError is a problem found by validation. at is the path used to find
// the line ("projects[1].key"); subject is how the message names the
// setting.
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

// nodeError is a bad value found while decoding; the path is added later.
type nodeError struct {
	line, column int
	msg          string
}

func (e *nodeError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// nodeErrorf reports a bad value from an UnmarshalYAML. It is wrapped in a
// *yaml.TypeError, the one kind of error after which yaml goes on
// decoding, so that a file's every bad value is reported at once;
// describeTypeError turns the text back into a nodeError.
func nodeErrorf(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: column %d: %s", n.Line, n.Column, fmt.Sprintf(format, args...))}}
}

// lineOfError is the line an error of this package names, 0 if none.
func lineOfError(err error) int {
	var fe *fieldError
	var ne *nodeError
	switch {
	case errors.As(err, &fe):
		return fe.line
	case errors.As(err, &ne):
		return ne.line
	}
	return 0
}

// joinByLine flattens joined errors and joins them again in line order
// (errors without a line first, in their order), so a file's problems
// read top to bottom.
func joinByLine(errs []error) error {
	var flat []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		if e != nil {
			flat = append(flat, e)
		}
	}
	for _, e := range errs {
		walk(e)
	}
	sort.SliceStable(flat, func(i, j int) bool { return lineOfError(flat[i]) < lineOfError(flat[j]) })
	return errors.Join(flat...)
}

// located is one node of the document with its dotted path.
type located struct {
	line, column int
	path, parent string
	value        string
	kind         yaml.Kind
	isKey        bool
}

// nodeIndex maps paths to lines and positions to paths.
type nodeIndex struct {
	byPath map[string]int
	nodes  []located
}

func indexNodes(top *yaml.Node) *nodeIndex {
	idx := &nodeIndex{byPath: map[string]int{}}
	idx.walk(top, "")
	return idx
}

func (x *nodeIndex) walk(n *yaml.Node, path string) {
	if path != "" {
		if _, ok := x.byPath[path]; !ok {
			x.byPath[path] = n.Line
		}
	}
	x.nodes = append(x.nodes, located{line: n.Line, column: n.Column, path: path, parent: parentPath(path), value: n.Value, kind: n.Kind})
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			child := k.Value
			if path != "" {
				child = path + "." + k.Value
			}
			x.nodes = append(x.nodes, located{line: k.Line, column: k.Column, path: child, parent: path, value: k.Value, kind: k.Kind, isKey: true})
			x.walk(v, child)
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			x.walk(e, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// parentPath strips the last ".name" or "[i]" from a path.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// lineOf is the line of path, or of its closest ancestor present in the
// file (a defaulted field has no line; its section does).
func (x *nodeIndex) lineOf(path string) int {
	for p := path; p != ""; p = parentPath(p) {
		if l, ok := x.byPath[p]; ok {
			return l
		}
	}
	return 0
}

// find returns the last (deepest) node matching ok.
func (x *nodeIndex) find(ok func(located) bool) (located, bool) {
	for i := len(x.nodes) - 1; i >= 0; i-- {
		if ok(x.nodes[i]) {
			return x.nodes[i], true
		}
	}
	return located{}, false
}

// describe turns a decoding or validation error into the form described at
// the top of this file. Errors it does not know pass through unchanged.
func (x *nodeIndex) describe(err error) error {
	var (
		fe *fieldError
		ne *nodeError
		te *yaml.TypeError
	)
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, x.describe(e))
		}
		return joinByLine(out)
	}
	switch {
	case errors.As(err, &fe):
		c := *fe
		if c.line == 0 {
			c.line = x.lineOf(c.at)
		}
		return &c
	case errors.As(err, &ne):
		n, ok := x.find(func(l located) bool { return !l.isKey && l.line == ne.line && l.column == ne.column })
		if !ok {
			return ne
		}
		return &fieldError{line: ne.line, subject: n.path, msg: ne.msg}
	case errors.As(err, &te):
		var out []error
		for _, msg := range te.Errors {
			out = append(out, x.describeTypeError(msg))
		}
		return joinByLine(out)
	}
	return err
}

var (
	reUnknownField = regexp.MustCompile(`^line (\d+): field (.+) not found in type (.+)$`)
	reDuplicateKey = regexp.MustCompile(`^line (\d+): mapping key "(.+)" already defined at line (\d+)$`)
	reNodeError    = regexp.MustCompile(`(?s)^line (\d+): column (\d+): (.*)$`)                         // from nodeErrorf
	reCannot       = regexp.MustCompile("^line (\\d+): cannot unmarshal (\\S+)(?: `(.*)`)? into (.+)$") // has backquotes
)

// describeTypeError rewrites one of yaml's messages, which name Go types
// ("config.plainGlobal") that mean nothing to the person editing the file.
func (x *nodeIndex) describeTypeError(msg string) error {
	if m := reNodeError.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		column, _ := strconv.Atoi(m[2])
		return x.describe(&nodeError{line: line, column: column, msg: m[3]})
	}
	if m := reUnknownField.FindStringSubmatch(msg); m != nil {
		return x.unknownField(atoi(m[1]), m[2], m[3])
	}
	if m := reDuplicateKey.FindStringSubmatch(msg); m != nil {
		return x.duplicateKey(atoi(m[1]), m[2], m[3])
	}
	if m := reCannot.FindStringSubmatch(msg); m != nil {
		return x.cannotUnmarshal(atoi(m[1]), m[2], m[3], m[4])
	}
	return errors.New(msg)
}

// atoi is the number of a regular expression's digits group.
func atoi(digits string) int {
	n, _ := strconv.Atoi(digits)
	return n
}

// unknownField is yaml's "field NAME not found in type TYPE" at line:
// which section, and the field the name is probably a misspelling of.
func (x *nodeIndex) unknownField(line int, name, goType string) error {
	section := "the top level"
	if k, ok := x.find(func(l located) bool { return l.isKey && l.line == line && l.value == name }); ok && k.parent != "" {
		section = k.parent
	}
	text := fmt.Sprintf("unknown field %q in %s", name, section)
	if s := suggest(name, fieldsOf[goType]); s != "" {
		text += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return &fieldError{line: line, msg: text}
}

// duplicateKey is yaml's "mapping key NAME already defined at line FIRST".
func (x *nodeIndex) duplicateKey(line int, name, first string) error {
	subject := ""
	if k, ok := x.find(func(l located) bool { return l.isKey && l.line == line && l.value == name }); ok {
		subject = k.parent
	}
	return &fieldError{line: line, subject: subject, msg: fmt.Sprintf("field %q is set twice (first at line %s)", name, first)}
}

// cannotUnmarshal is yaml's "cannot unmarshal TAG `VALUE` into TYPE": the
// value's setting, and what was expected instead, in the file's words.
func (x *nodeIndex) cannotUnmarshal(line int, tag, value, goType string) error {
	subject := ""
	if n, ok := x.find(func(l located) bool { return !l.isKey && l.line == line && nodeMatches(l, tag, value) }); ok {
		subject = n.path
	}
	want := strings.NewReplacer("config.plain", "", "config.", "").Replace(goType)
	got := map[string]string{"!!seq": "a list", "!!map": "a mapping"}[tag]
	if got == "" {
		got = tag
	}
	if value != "" {
		got = strconv.Quote(value)
	}
	return &fieldError{line: line, subject: subject, msg: fmt.Sprintf("expected %s, got %s", typeWord(want), got)}
}

// nodeMatches tells whether l may be the node of yaml's message: a list
// or mapping for those tags, else a scalar starting with value (which
// yaml may have cut short with "...").
func nodeMatches(l located, tag, value string) bool {
	switch tag {
	case "!!seq":
		return l.kind == yaml.SequenceNode
	case "!!map":
		return l.kind == yaml.MappingNode
	}
	return l.kind == yaml.ScalarNode && strings.HasPrefix(l.value, strings.TrimSuffix(value, "..."))
}

// typeWord names a Go type in the words of the file format.
func typeWord(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case t == "int", t == "float64":
		return "a number"
	case t == "string":
		return "a string"
	case t == "Config", t == "Global", t == "Key", t == "Project", strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	return t
}

// fieldsOf lists the field names of each decoded struct type, keyed the way
// yaml names the type in its messages, for the "did you mean" hint.
var fieldsOf = func() map[string][]string {
	m := map[string][]string{}
	for _, v := range []any{plainConfig{}, plainGlobal{}, plainKey{}, plainProject{}} {
		t := reflect.TypeOf(v)
		var names []string
		for i := 0; i < t.NumField(); i++ {
			names = append(names, strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0])
		}
		m[t.String()] = names
	}
	return m
}()

// suggest returns the field closest to a misspelt name, or "".
func suggest(name string, fields []string) string {
	norm := func(s string) string { return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s)) }
	best, bestDist := "", 3
	for _, f := range fields {
		if norm(f) == norm(name) {
			return f
		}
		if d := editDistance(name, f); d < bestDist {
			best, bestDist = f, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
