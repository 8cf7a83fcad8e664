// Package cli is what the commands share: common flags, reading the key, the API client, exit codes,
// kingpin parsing that never exits, and listeners behind one connection limit.
package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/common/version"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// Name is the program's name: the binary, the User-Agent, log and error prefixes.
const Name = "mintlify_exporter"

// The commands' exit codes, defined here only.
const (
	ExitOK      = 0
	ExitError   = 1 // API error, no answer, a file not readable or writable; the same command may succeed later
	ExitUsage   = 2 // bad command line or input, or arguments the API refused (400): the command line must change
	ExitTimeout = 3 // jobs watch: --timeout passed before the job finished
)

// ExitOfAPIError is the exit status for an API error: ExitUsage for a 400 (the arguments must change), else ExitError.
func ExitOfAPIError(err error) int {
	switch mintlify.Classify(err).Kind {
	case mintlify.KindNone:
		return ExitOK
	case mintlify.KindBadRequest:
		return ExitUsage
	}
	return ExitError
}

// KeyEnv is the environment variable that holds the key when no key file is given.
const KeyEnv = "MINTLIFY_API_KEY"

// DefaultStoragePath is under systemd's StateDirectory= when the unit sets one, else data/.
func DefaultStoragePath(getenv func(string) string) string {
	if dirs := getenv("STATE_DIRECTORY"); dirs != "" {
		dir, _, _ := strings.Cut(dirs, ":")
		return filepath.Join(dir, "state.json")
	}
	return filepath.Join("data", "state.json")
}

// UserAgent is mintlify_exporter/<version>, "dev" for an unstamped build.
func UserAgent() string {
	return Name + "/" + cmp.Or(version.Version, "dev")
}

// SleepContext waits d or until ctx ends; tests replace it with a fake clock's.
var SleepContext = mintlify.Sleep

const projectIDFlag = "--mintlify.project-id (or MINTLIFY_PROJECT_ID)"

// FlagNames maps the settings the flags set to the flags, so config.Single's errors name the flags.
func FlagNames() config.FlagNames {
	return config.FlagNames{
		"projects[0].id":         projectIDFlag,
		"global.api_url":         "--mintlify.api-url",
		"global.request_timeout": "--mintlify.request-timeout",
	}
}

// CheckProjectID checks --mintlify.project-id, in the words of the flag.
func CheckProjectID(projectID string) error {
	if err := mintlify.CheckID(projectID); err != nil {
		return fmt.Errorf("%s: %w", projectIDFlag, err)
	}
	return nil
}

// CheckAPIURL checks --mintlify.api-url.
func CheckAPIURL(apiURL string) error {
	if err := config.CheckAPIURL(apiURL); err != nil {
		return fmt.Errorf("--mintlify.api-url %w", err)
	}
	return nil
}

// CheckRequestTimeout checks --mintlify.request-timeout, in the words of the flag.
func CheckRequestTimeout(d time.Duration) error {
	if d < config.MinRequestTimeout || d > config.MaxRequestTimeout {
		return fmt.Errorf("--mintlify.request-timeout must be at least %s and at most %s, got %s", config.MinRequestTimeout, config.MaxRequestTimeout, d)
	}
	return nil
}

// KeyFileError is a key file that could not be read: an I/O error, not a usage error.
type KeyFileError struct{ err error }

func (e *KeyFileError) Error() string { return e.err.Error() }
func (e *KeyFileError) Unwrap() error { return e.err }

// ReadKey reads the key from --mintlify.api-key-file, else MINTLIFY_API_KEY; errors never hold the value.
func ReadKey(file string, getenv func(string) string) (secret.Secret, error) {
	k := config.Key{APIKeyEnv: KeyEnv, APIKeyFile: file}
	source := "the " + KeyEnv + " environment variable"
	if file != "" {
		k.APIKeyEnv = ""
		source = "--mintlify.api-key-file " + file
	}
	v, err := k.Read(getenv)
	var pe *fs.PathError
	switch {
	case err != nil && errors.As(err, &pe):
		return secret.Secret{}, &KeyFileError{fmt.Errorf("reading --mintlify.api-key-file: %w", pe)}
	case err != nil && file != "":
		return secret.Secret{}, fmt.Errorf("no usable API key in --mintlify.api-key-file: %w", err)
	case err != nil:
		return secret.Secret{}, fmt.Errorf("no API key: %w; set it to an admin key, or give --mintlify.api-key-file", err)
	}
	if err := mintlify.ValidateKey(v.Reveal()); err != nil {
		return secret.Secret{}, fmt.Errorf("the key in %s: %w", source, err)
	}
	return v, nil
}

// NewClient is a command's API client on its own transport; release closes its idle connections.
func NewClient(apiURL string, key secret.Secret, timeout time.Duration, maxRetries int) (c *mintlify.Client, release func(), err error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	c, err = mintlify.New(mintlify.Options{
		BaseURL:        apiURL,
		Key:            key,
		UserAgent:      UserAgent(),
		HTTPClient:     &http.Client{Transport: transport},
		RequestTimeout: timeout,
		MaxRetries:     maxRetries,
	})
	if err != nil {
		transport.CloseIdleConnections()
		return nil, nil, err
	}
	return c, transport.CloseIdleConnections, nil
}

// IOError is a file that could not be read or written: exit status 1, not 2.
type IOError struct{ Err error }

func (e *IOError) Error() string { return e.Err.Error() }
func (e *IOError) Unwrap() error { return e.Err }

// ExitCodeOf is ExitError for an *IOError or *KeyFileError, else ExitUsage.
func ExitCodeOf(err error) int {
	var ie *IOError
	var ke *KeyFileError
	if errors.As(err, &ie) || errors.As(err, &ke) {
		return ExitError
	}
	return ExitUsage
}
