package mintlify

// Ids are checked where they enter (config, tracked-jobs file, jobs arguments, receiver routes): an id is one
// URL path segment, so what could change the path or the log line it is printed in is refused.

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDLen: Mintlify's ids are a few dozen bytes; 200 leaves room without letting a pasted document through.
const MaxIDLen = 200

// CheckID reports why id is no plausible project or job id; callers add where it came from.
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

// IsPlaceholder reports a shipped example's stand-in id, refused so that an unedited example never acts.
func IsPlaceholder(id string) bool {
	return strings.HasPrefix(strings.ToUpper(strings.ReplaceAll(id, "-", "_")), "YOUR_")
}
