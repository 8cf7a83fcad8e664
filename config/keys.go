package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// MaxKeyFileSize guards against api_key_file naming the wrong file: a key is a few dozen bytes.
const MaxKeyFileSize = 4096

// ResolveKeys reads every key, apart from Parse so a file is checked without its secrets; errors never hold a value.
func (c *Config) ResolveKeys(getenv func(string) string) (map[string]secret.Secret, error) {
	out := make(map[string]secret.Secret, len(c.Keys))
	var errs []error
	for i, k := range c.Keys {
		v, err := k.Read(getenv)
		if err != nil {
			errs = append(errs, c.KeyError(i, err))
			continue
		}
		out[k.Name] = v
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// KeyError names Keys[i] in err with the file and line of its source, like any other mistake of the file.
func (c *Config) KeyError(i int, err error) error {
	e := &fieldError{subject: subject("keys", i, c.Keys[i].Name), msg: err.Error(), cause: err}
	if i < len(c.keyLines) {
		e.line = c.keyLines[i]
	}
	if c.file != "" {
		return fmt.Errorf("%s: %w", c.file, e)
	}
	return e
}

// Read reads the key from its file or environment variable, trimmed; errors name the source, never the value.
func (k Key) Read(getenv func(string) string) (secret.Secret, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var raw, from string
	if k.APIKeyFile != "" {
		from = "file " + k.APIKeyFile
		b, err := readBounded(k.APIKeyFile, "api_key_file", MaxKeyFileSize)
		if tl := (*safefile.TooLargeError)(nil); errors.As(err, &tl) {
			return secret.Secret{}, fmt.Errorf("%w, too large to be an API key", err)
		}
		if err != nil {
			return secret.Secret{}, err
		}
		raw = string(b)
	} else {
		from = "environment variable " + k.APIKeyEnv
		raw = getenv(k.APIKeyEnv)
	}
	v := strings.TrimSpace(raw)
	switch {
	case v == "":
		return secret.Secret{}, fmt.Errorf("%s is empty", from)
	case hasSpace(v):
		// A pasted value with a space would fail later as an HTTP header, with a less helpful error.
		return secret.Secret{}, fmt.Errorf("%s contains whitespace or control characters inside the key", from)
	}
	return secret.New(v), nil
}

// EffectiveBudget is floor((budget_per_hour - reserve) * share), at least 1 so a tiny share still progresses.
func (k Key) EffectiveBudget() int {
	// The epsilon absorbs float error: (100-10)*0.7 is 62.99999999999999.
	n := int(math.Floor(float64(k.BudgetPerHour-k.Reserve)*k.Share + 1e-9))
	return max(n, 1)
}
