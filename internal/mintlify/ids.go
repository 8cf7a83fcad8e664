package mintlify

// Project and agent-job ids are checked where they enter the exporter:
// the config file, the tracked-jobs file, the jobs command's arguments and
// the receiver's routes. An id becomes one segment of an API URL path, so
// anything that could change the path (a slash, a dot segment, a query or
// fragment marker) or the log line it is printed in (control characters)
// is refused before any request is built.

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDLen is the longest id accepted, in bytes. Mintlify's ids are a few
// dozen characters; 200 leaves room without letting a pasted document
// through as an id.
const MaxIDLen = 200

// CheckID reports why id is not a plausible project or job id, or nil. The
// message quotes the id (with %q, so control characters show escaped) but
// does not say where it came from: callers add that.
func CheckID(id string) error {
	switch {
	case id == "":
		return errors.New("id is empty")
	case len(id) > MaxIDLen:
		return fmt.Errorf("id is %d bytes long, more than %d", len(id), MaxIDLen)
	case !utf8.ValidString(id):
		return errors.New("id is not valid UTF-8")
	case id == "." || id == "..":
		return fmt.Errorf("id %q must not be a dot segment (it would change the API path)", id)
	case strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return fmt.Errorf("id %q must not contain whitespace or control characters", id)
	case strings.ContainsFunc(id, func(r rune) bool {
		return r == '/' || r == '\\' || r == '?' || r == '#' || r == '%' || r == utf8.RuneError || !unicode.IsPrint(r)
	}):
		return fmt.Errorf("id %q must not contain '/', '\\', '?', '#', '%%' or unprintable characters", id)
	}
	return nil
}

// IsPlaceholder reports whether id is a shipped example's stand-in
// (YOUR_PROJECT_ID, YOUR_AUTOMATION_ID: any case, - or _), which every
// configuration check refuses so that an unedited example never acts.
func IsPlaceholder(id string) bool {
	return strings.HasPrefix(strings.ToUpper(strings.ReplaceAll(id, "-", "_")), "YOUR_")
}
