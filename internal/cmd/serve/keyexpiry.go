package serve

import (
	"fmt"
	"io"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
)

const expiresAtFlag = "mintlify.api-key-expires-at"

// applyKeyExpiry sets the flag-mode key's expires_at from --mintlify.api-key-expires-at.
func (f *flags) applyKeyExpiry(cfg *config.Config) error {
	if f.keyExpiresAt == "" {
		return nil
	}
	d, err := config.ParseDate(f.keyExpiresAt)
	if err != nil {
		return fmt.Errorf("--%s %v", expiresAtFlag, err)
	}
	cfg.Keys[0].ExpiresAt = d
	return nil
}

// warnExpiringKeys prints one warning a key that expires within config.ExpiryWarning of now, or has expired.
func warnExpiringKeys(w io.Writer, f *flags, cfg *config.Config, now time.Time) {
	for _, i := range cfg.ExpiringKeys(now, config.ExpiryWarning) {
		verb, date := "expires", cfg.Keys[i].ExpiresAt
		if !date.After(now) {
			verb = "expired"
		}
		err := fmt.Errorf("the key %s on %s: create a new one on the API keys page of the Mintlify dashboard's settings, then update the key and its expiry date", verb, date)
		if f.common.ConfigFile == "" && !f.demo {
			fmt.Fprintf(w, "%s: warning: --%s: %v\n", exporterName, expiresAtFlag, err)
			continue
		}
		fmt.Fprintf(w, "%s: warning: %v\n", exporterName, cfg.KeyError(i, err))
	}
}
