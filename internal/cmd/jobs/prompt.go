package jobs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/internal/cli"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

type promptSource struct {
	text    string
	textSet bool
	file    string
}

func addPromptFlags(cmd *kingpin.CmdClause, p *promptSource) {
	cmd.Flag("prompt", "The prompt text.").PlaceHolder("TEXT").IsSetByUser(&p.textSet).StringVar(&p.text)
	cmd.Flag("prompt-file", "Read the prompt from this file; '-' is standard input.").PlaceHolder("FILE").StringVar(&p.file)
}

func (e *jobsEnv) readPrompt(p promptSource) (string, error) {
	if p.textSet && p.file != "" {
		return "", errors.New("give either --prompt or --prompt-file, not both")
	}
	text := p.text
	if !p.textSet {
		var r io.Reader
		name := "standard input"
		if p.file == "" || p.file == "-" {
			if f, ok := e.stdin.(*os.File); ok {
				if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
					fmt.Fprintf(e.stderr, "%s: reading the prompt from standard input (end it with Ctrl-D)\n", jobsCmdName)
				}
			}
			r = e.stdin
		} else {
			// Opened without waiting on a FIFO: a pipe's text goes on standard input.
			f, err := safefile.Open(p.file, "--prompt-file", maxPromptBytes)
			var tooLarge *safefile.TooLargeError
			var pathErr *fs.PathError
			switch {
			case errors.As(err, &tooLarge):
				return "", fmt.Errorf("the prompt in %s is longer than %d bytes", p.file, maxPromptBytes)
			case errors.As(err, &pathErr):
				return "", &cli.IOError{Err: fmt.Errorf("reading the prompt: %w", pathErr)}
			case err != nil:
				return "", &cli.IOError{Err: fmt.Errorf("reading the prompt: %w", err)}
			}
			defer f.Close()
			r, name = f.Reader(), p.file
		}
		if r == nil {
			return "", errors.New("no prompt: give --prompt TEXT, --prompt-file FILE, or the text on standard input")
		}
		b, err := io.ReadAll(io.LimitReader(r, maxPromptBytes+1))
		if err != nil {
			return "", &cli.IOError{Err: fmt.Errorf("reading the prompt from %s: %w", name, err)}
		}
		if len(b) > maxPromptBytes {
			return "", fmt.Errorf("the prompt in %s is longer than %d bytes", name, maxPromptBytes)
		}
		text = strings.TrimRight(string(b), "\r\n")
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the prompt is empty: the API needs at least one character (give --prompt TEXT, --prompt-file FILE, or the text on standard input); nothing was sent")
	}
	return text, nil
}

// checkTrackDir fails before a job is created, rather than after.
func checkTrackDir(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return &cli.IOError{Err: fmt.Errorf("--track %s: directory %s does not exist; no job was created", path, dir)}
	}
	return nil
}
