package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/secret"
)

// checkJobID belongs to no job: a good key answers 404, and the call costs no analytics budget.
const checkJobID = "job_mintlify_exporter_config_check"

// checkConfig is --config.check: one problem a line on stderr, the verdict last; exit 1 when invalid.
func checkConfig(ctx context.Context, f *flags, stdout, stderr io.Writer) int {
	invalid := func(err error) int {
		n := 0
		for _, line := range strings.Split(err.Error(), "\n") {
			if line != "" {
				fmt.Fprintln(stderr, line)
				n++
			}
		}
		fmt.Fprintf(stderr, "%s: the configuration is NOT valid (%d problem%s)\n", exporterName, n, plural(n))
		return cli.ExitError
	}
	src, err := newConfigSource(ctx, f, quiet, nil)
	if err != nil {
		return invalid(err)
	}
	defer src.close()
	cfg, err := src.read()
	if err != nil {
		return invalid(err)
	}
	absent := 0
	// The packaged unit's state directory and key credential exist only once the service runs, so an offline check warns.
	if err := src.checkTrackedJobsFile(cfg); errors.Is(err, fs.ErrNotExist) && !f.checkOnline {
		fmt.Fprintf(stderr, "%s: warning: %v (the exporter will not start without it)\n", exporterName, err)
		absent++
	} else if err != nil {
		return invalid(err)
	}
	keys := make(map[string]secret.Secret, len(cfg.Keys))
	var errs []error
	for i, k := range cfg.Keys {
		v, err := k.Read(src.getenv)
		if k.APIKeyFile != "" && errors.Is(err, fs.ErrNotExist) && !f.checkOnline {
			fmt.Fprintf(stderr, "%s: warning: %v (the exporter will not start without it)\n", exporterName, cfg.KeyError(i, err))
			absent++
			continue
		}
		if err == nil {
			keys[k.Name], err = v, mintlify.ValidateKey(v.Reveal())
		}
		if err != nil {
			errs = append(errs, cfg.KeyError(i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return invalid(err)
	}
	warnExpiringKeys(stderr, f, cfg, time.Now())
	what := "offline: the API was not contacted; --config.check-online asks it"
	if f.checkOnline {
		if err := checkOnline(ctx, cfg, keys); err != nil {
			return invalid(err)
		}
		what = "every project's key was accepted by the API"
	}
	source := "from the flags"
	switch {
	case f.demo:
		source = "of the demo"
	case f.common.ConfigFile != "":
		source = f.common.ConfigFile
	}
	if absent > 0 {
		what += fmt.Sprintf("; %d file%s not there yet", absent, plural(absent))
	}
	fmt.Fprintf(stdout, "%s: the configuration %s is valid: %d project%s, %d key%s (%s)\n", exporterName, source,
		len(cfg.Projects), plural(len(cfg.Projects)), len(cfg.Keys), plural(len(cfg.Keys)), what)
	return cli.ExitOK
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// checkOnline reads a missing job per project: 404 is a good key, 401 unknown or expired, 403 no read scope,
// another organization or outside its IP allowlist. Agent-API calls cost no analytics budget.
func checkOnline(ctx context.Context, cfg *config.Config, keys map[string]secret.Secret) error {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport}
	var errs []error
	for _, p := range cfg.Projects {
		keyName := p.Key
		if keyName == "" && len(cfg.Keys) == 1 {
			keyName = cfg.Keys[0].Name
		}
		client, err := mintlify.New(mintlify.Options{
			BaseURL:        cfg.Global.APIURL,
			Key:            keys[keyName],
			UserAgent:      cli.UserAgent(),
			HTTPClient:     hc,
			RequestTimeout: time.Duration(cfg.Global.RequestTimeout),
			MaxRetries:     -1,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("project %q, key %q: %w", p.Name, keyName, err))
			continue
		}
		_, err = client.GetJob(ctx, p.ID, checkJobID)
		switch {
		case err == nil, mintlify.IsNotFound(err):
		case mintlify.IsUnauthorized(err):
			errs = append(errs, fmt.Errorf("project %q: the API refused key %q (401): unknown, revoked or expired", p.Name, keyName))
		case mintlify.IsForbidden(err):
			errs = append(errs, fmt.Errorf("project %q (id %s): key %q may not read it (403): the key lacks read scope, the project belongs to another organization, or this host is outside the key's IP allowlist", p.Name, p.ID, keyName))
		default:
			errs = append(errs, fmt.Errorf("project %q: checking key %q: %w", p.Name, keyName, err))
		}
	}
	return errors.Join(errs...)
}
