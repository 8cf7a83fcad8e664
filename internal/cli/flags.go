package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/config"
	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
)

// Flags holds the flags common to the commands: same name, environment variable, default and help everywhere.
type Flags struct {
	ProjectID      string   // --mintlify.project-id, where a command takes one project
	ProjectIDs     []string // --mintlify.project-id, where a command takes several
	KeyFile        string   // --mintlify.api-key-file
	APIURL         string   // --mintlify.api-url
	RequestTimeout time.Duration
	ConfigFile     string // --config.file
	StoragePath    string // --storage.path

	// Set on the command line or environment, not defaulted.
	APIURLSet, TimeoutSet bool

	deprecated []*deprecatedFlag
}

type deprecatedFlag struct {
	old, replacement string
	used             bool
}

func help(first, note string) string {
	if note == "" {
		return first
	}
	return first + " " + note
}

// AddProjectID adds --mintlify.project-id for one project.
func (f *Flags) AddProjectID(app *kingpin.Application, note string) *kingpin.FlagClause {
	c := app.Flag("mintlify.project-id", help("Project id.", note)).PlaceHolder("ID").Envar("MINTLIFY_PROJECT_ID")
	c.StringVar(&f.ProjectID)
	return c
}

// AddProjectIDs adds a repeatable --mintlify.project-id; the command applies MINTLIFY_PROJECT_ID itself, as kingpin would split it at newlines.
func (f *Flags) AddProjectIDs(app *kingpin.Application, note string) *kingpin.FlagClause {
	c := app.Flag("mintlify.project-id", help("Project id; repeat for several.", note)).PlaceHolder("ID")
	c.StringsVar(&f.ProjectIDs)
	return c
}

// AddKeyFile adds --mintlify.api-key-file.
func (f *Flags) AddKeyFile(app *kingpin.Application, note string) {
	app.Flag("mintlify.api-key-file", help("File holding the admin API key. Otherwise the key is read from the "+KeyEnv+" environment variable; it is never a flag value.", note)).
		PlaceHolder("FILE").StringVar(&f.KeyFile)
}

// AddAPIURL adds --mintlify.api-url.
func (f *Flags) AddAPIURL(app *kingpin.Application, note string) {
	app.Flag("mintlify.api-url", help("Base URL of the Mintlify API.", note)).
		Default(mintlify.DefaultBaseURL).IsSetByUser(&f.APIURLSet).StringVar(&f.APIURL)
}

// AddRequestTimeout adds --mintlify.request-timeout.
func (f *Flags) AddRequestTimeout(app *kingpin.Application, note string) {
	app.Flag("mintlify.request-timeout", help("Timeout of each API request, at least "+config.Duration(config.MinRequestTimeout).String()+" and at most "+config.Duration(config.MaxRequestTimeout).String()+".", note)).
		Default(mintlify.DefaultRequestTimeout.String()).IsSetByUser(&f.TimeoutSet).DurationVar(&f.RequestTimeout)
}

// AddConfigFile adds --config.file.
func (f *Flags) AddConfigFile(app *kingpin.Application, helpText string) {
	app.Flag("config.file", helpText).PlaceHolder("FILE").StringVar(&f.ConfigFile)
}

// AddStoragePath adds --storage.path.
func (f *Flags) AddStoragePath(app *kingpin.Application, helpText string) {
	app.Flag("storage.path", helpText).Default(DefaultStoragePath(os.Getenv)).StringVar(&f.StoragePath)
}

// Deprecated adds a hidden flag old that sets replacement's variable.
func (f *Flags) Deprecated(app *kingpin.Application, old, replacement string, register func(*kingpin.FlagClause)) {
	d := &deprecatedFlag{old: old, replacement: replacement}
	c := app.Flag(old, "Deprecated: use --"+replacement+".").Hidden()
	c.PreAction(func(*kingpin.ParseContext) error { d.used = true; return nil })
	register(c)
	f.deprecated = append(f.deprecated, d)
}

// Warn prints, for each deprecated flag used, which flag replaces it.
func (f *Flags) Warn(w io.Writer, name string) {
	for _, d := range f.deprecated {
		if d.used {
			fmt.Fprintf(w, "%s: --%s is deprecated and will be removed; use --%s instead\n", name, d.old, d.replacement)
		}
	}
}
