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

// checkJobID is the job id the online check asks for. No job has it, so
// a good key and project answer 404 "Job not found"; the call is not an
// analytics call, so it costs nothing of the hourly analytics budget.
const checkJobID = "job_mintlify_exporter_config_check"

// checkConfig is --config.check: load the configuration as the exporter
// would, read every key and check its type, and ask the API whether each project's key is
// accepted. It prints each
// problem on a line of its own on stderr and the verdict last (stdout when
// valid); exit status 0 when valid, 1 when not.
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
	// The packaged unit's state directory, like its key credential, exists
	// only once the service has started, so an offline check warns of both.
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
		// A packaged unit's key file (a systemd credential) exists only
		// while the service runs, so an offline check must not need it.
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

// checkOnline reads a job that does not exist in every project, with the
// project's key: 404 means the key is good and may read the project's
// jobs; 401 a key the API does not know (or expired); 403 a key without
// read scope, from another organization, or used outside its IP
// allowlist. It makes one agent-API call per project and none of the
// analytics calls the hourly budget counts.
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
			// 404 Job not found: the key may read this project's jobs.
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
