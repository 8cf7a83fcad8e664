// Package secret holds an API key so that it cannot leak through fmt, slog,
// JSON, YAML or text marshalling by accident. Only Reveal gives the value.
package secret

import (
	"fmt"
	"log/slog"
)

// Redacted is what every printing path shows instead of the value.
const Redacted = "<secret>"

// Secret is a string that prints as Redacted. The zero value is empty.
//
// The value sits behind a pointer: fmt prints an unexported struct field by
// reflection without calling its methods, so a Secret stored in another
// type's unexported field would otherwise show in that type's %+v. Behind a
// pointer it shows as an address.
type Secret struct {
	value *string
}

// New wraps s.
func New(s string) Secret { return Secret{value: &s} }

// Reveal returns the value. Call it only where the value goes on the wire.
func (s Secret) Reveal() string {
	if s.value == nil {
		return ""
	}
	return *s.value
}

// String implements fmt.Stringer.
func (s Secret) String() string { return Redacted }

// GoString implements fmt.GoStringer, so %#v is redacted as well.
func (s Secret) GoString() string { return `secret.Secret("` + Redacted + `")` }

// Format covers every verb, including %x and %q, which would otherwise
// print the underlying string of a struct field.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(s.GoString()))
		return
	}
	_, _ = f.Write([]byte(Redacted))
}

// LogValue implements slog.LogValuer.
func (s Secret) LogValue() slog.Value { return slog.StringValue(Redacted) }

// MarshalText implements encoding.TextMarshaler (JSON, YAML, flags).
func (s Secret) MarshalText() ([]byte, error) { return []byte(Redacted), nil }
