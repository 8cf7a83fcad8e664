package backfill

// The backfill's files are checked before the first request, so a refusal never comes after requests were spent.
// --output and the journal must be absent or regular files, --force or not; the journal, opened by
// safefile.Create, must be the file lstat saw. A journal of other arguments, or no journal, goes only with --force.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

var errNotJournal = errors.New("not the progress file of a backfill")

// errPreReleaseJournal: version 1, written only by development builds before 0.1.0, is refused, not migrated.
var errPreReleaseJournal = errors.New("the progress file of a development build before 0.1.0")

// changedError: the journal path changed between check and open, so another process is at work there.
type changedError struct{ path string }

func (e *changedError) Error() string {
	return fmt.Sprintf("progress file %s changed while it was opened (another process is using the path); refusing to use it", e.path)
}

// journalOpenHook lets tests swap the file between the lstat and the open.
var journalOpenHook func()

// maxHeaderLine bounds what is read to tell a journal of other arguments from a file that is no journal.
const maxHeaderLine = 1 << 20

func checkOutput(path string, force bool) error {
	if err := safefile.CheckTarget(path); err != nil {
		var nr *safefile.NotRegularTargetError
		if errors.As(err, &nr) {
			return fmt.Errorf("--output %s is %s, not a regular file; refusing to replace it, with --force too (remove it, or give another --output)", path, safefile.Kind(nr.Mode))
		}
		return fmt.Errorf("--output %s: %w", path, err)
	}
	if _, err := os.Lstat(path); err == nil && !force {
		return fmt.Errorf("--output %s exists; give --force to overwrite it", path)
	}
	return nil
}

func openJournalFile(path, args string, force bool) (*os.File, error) {
	before, err := os.Lstat(path)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	case exists && !before.Mode().IsRegular():
		return nil, &safefile.NotRegularError{Role: "progress file", Path: path, Op: "open", Mode: before.Mode()}
	}
	if journalOpenHook != nil {
		journalOpenHook()
	}
	// safefile.Create: 0600, no link followed, no FIFO waited on.
	flags := os.O_RDWR | os.O_CREATE
	if !exists {
		flags |= os.O_EXCL
	}
	f, err := safefile.Create(path, flags)
	switch {
	case errors.As(err, new(*safefile.NotRegularError)) || errors.Is(err, fs.ErrExist):
		// A link, a FIFO or a file put there since the lstat.
		return nil, &changedError{path: path}
	case err != nil:
		return nil, err
	}
	after, err := f.Stat()
	if err == nil && exists && !os.SameFile(before, after) {
		err = &changedError{path: path}
	}
	if err == nil && exists {
		err = reuseOrRestart(f, after.Size(), args, force)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func reuseOrRestart(f *os.File, size int64, args string, force bool) error {
	want, err := json.Marshal(journalHeader{Version: journalVersion, Args: args})
	if err != nil {
		return err
	}
	want = append(want, '\n')
	got := make([]byte, len(want))
	n, err := f.ReadAt(got, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	got = got[:n]
	switch {
	case bytes.Equal(got, want):
		return nil // this run's journal: resumed
	case size == int64(n) && bytes.HasPrefix(want, got):
		// Empty, or this run's header cut short: nothing was fetched.
	case !force:
		switch journalVersionOf(f) {
		case 0:
			return errNotJournal
		case 1:
			return errPreReleaseJournal
		}
		return errJournalArgs
	}
	return f.Truncate(0)
}

func journalVersionOf(f *os.File) int {
	line, err := bufio.NewReader(io.NewSectionReader(f, 0, maxHeaderLine)).ReadBytes('\n')
	if err != nil {
		return 0
	}
	var h journalHeader
	if json.Unmarshal(line, &h) != nil || h.Version <= 0 || h.Args == "" {
		return 0
	}
	return h.Version
}
