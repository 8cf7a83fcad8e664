package engine

import "time"

// KeyExpiry is a configured key's expires_at.
type KeyExpiry struct {
	Name      string
	ExpiresAt time.Time
}

// KeyExpiries are the keys of the configuration applied that have an expires_at, in its order.
func (v View) KeyExpiries() []KeyExpiry {
	var out []KeyExpiry
	for _, k := range v.keys {
		if !k.expiresAt.IsZero() {
			out = append(out, KeyExpiry{Name: k.name, ExpiresAt: k.expiresAt})
		}
	}
	return out
}
