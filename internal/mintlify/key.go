package mintlify

import (
	"errors"
	"strings"
	"unicode"
)

// Two other Mintlify key types share the "mint_" prefix but the admin API refuses them: caught here, not as a 401.
const (
	adminKeyPrefix     = "mint_"
	assistantKeyPrefix = "mint_dsc_"
	indexKeyPrefix     = "mint_us_"
)

// ValidateKey checks that key looks like an admin API key; its errors never quote it.
func ValidateKey(key string) error {
	switch {
	case key == "":
		return errors.New("API key is empty")
	case strings.IndexFunc(key, unicode.IsSpace) >= 0:
		return errors.New("API key contains whitespace (a trailing newline or space in the file or variable?)")
	case strings.HasPrefix(key, assistantKeyPrefix):
		return errors.New("API key is an assistant key (prefix mint_dsc_); the admin API needs an admin key (prefix mint_)")
	case strings.HasPrefix(key, indexKeyPrefix):
		return errors.New("API key is an index key (prefix mint_us_); the admin API needs an admin key (prefix mint_)")
	case !strings.HasPrefix(key, adminKeyPrefix) || len(key) == len(adminKeyPrefix):
		return errors.New("API key is not an admin key: admin keys start with mint_")
	}
	return nil
}
