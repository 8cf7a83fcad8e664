package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// maxKeyFileSize guards against api_key_file pointing at the wrong file:
// an API key is a few dozen bytes.
const maxKeyFileSize = 4096

// ResolveKeys reads every key from its environment variable or file. It is
// separate from Parse so the file can be checked (and printed) without the
// secrets, and so tests can pass their own getenv; nil means os.Getenv.
//
// Surrounding whitespace is dropped, since secret files and `echo` usually
// end in a newline. Errors name the key and where it was read from, never
// the value.
func (c *Config) ResolveKeys(getenv func(string) string) (map[string]secret.Secret, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	out := make(map[string]secret.Secret, len(c.Keys))
	var errs []error
	for i, k := range c.Keys {
		subj := subject("keys", i, k.Name)
		var raw, from string
		if k.APIKeyFile != "" {
			from = "file " + k.APIKeyFile
			b, err := os.ReadFile(k.APIKeyFile)
			if err != nil {
				// *PathError says which file and why, not what is in it.
				errs = append(errs, fmt.Errorf("%s: reading api_key_file: %w", subj, err))
				continue
			}
			if len(b) > maxKeyFileSize {
				errs = append(errs, fmt.Errorf("%s: %s is %d bytes, too large to be an API key", subj, from, len(b)))
				continue
			}
			raw = string(b)
		} else {
			from = "environment variable " + k.APIKeyEnv
			raw = getenv(k.APIKeyEnv)
		}
		v := strings.TrimSpace(raw)
		switch {
		case v == "":
			errs = append(errs, fmt.Errorf("%s: %s is empty", subj, from))
		case hasSpace(v):
			// A multi-line file or a pasted value with a space would fail
			// as an HTTP header far from here, with a less helpful error.
			errs = append(errs, fmt.Errorf("%s: %s contains whitespace or control characters inside the key", subj, from))
		default:
			out[k.Name] = secret.New(v)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// EffectiveBudget is how many analytics requests per hour this replica may
// make with the key: floor((budget_per_hour - reserve) * share), and at
// least 1 so a tiny share still makes progress.
func (k Key) EffectiveBudget() int {
	// The epsilon absorbs float error: (100-10)*0.7 is 62.99999999999999.
	n := int(math.Floor(float64(k.BudgetPerHour-k.Reserve)*k.Share + 1e-9))
	return max(n, 1)
}
