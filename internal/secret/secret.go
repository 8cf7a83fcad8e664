// Package secret holds an API key that prints as Redacted everywhere; only Reveal gives it.
package secret

import (
	"fmt"
	"log/slog"
)

// Redacted is what every printing path shows instead of the value.
const Redacted = "<secret>"

// Secret keeps its value behind a pointer, so fmt's %+v of an enclosing struct shows an address.
type Secret struct {
	value *string
}

// New wraps s.
func New(s string) Secret { return Secret{value: &s} }

// Reveal returns the value; call it only where the value goes on the wire.
func (s Secret) Reveal() string {
	if s.value == nil {
		return ""
	}
	return *s.value
}

func (s Secret) String() string { return Redacted }

func (s Secret) GoString() string { return `secret.Secret("` + Redacted + `")` }

// Format covers every verb: %x and %q would print a struct field's underlying string.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(s.GoString()))
		return
	}
	_, _ = f.Write([]byte(Redacted))
}

func (s Secret) LogValue() slog.Value { return slog.StringValue(Redacted) }

func (s Secret) MarshalText() ([]byte, error) { return []byte(Redacted), nil }
