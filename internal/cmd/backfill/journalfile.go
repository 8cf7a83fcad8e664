package backfill

// The rules the backfill's files are opened under, checked before the
// first request, so that a refusal never comes after requests were spent:
//
//   - --output is absent or a regular file; anything else (a symbolic
//     link, a FIFO, a socket, a device, a directory) is refused, with
//     --force too, naming it and its kind. It is replaced by rename at the
//     end (internal/safefile), never written through.
//   - The journal (FILE.partial) is absent or a regular file, as the
//     state file is: anything else is refused, naming it and its kind,
//     and is never opened. It is checked with lstat, then opened by
//     safefile.Create (no link followed, no FIFO waited on), and the
//     opened file must be the one lstat saw.
//   - An existing journal is reused only when its first line is the
//     header of this run's arguments. One of other arguments, or a file
//     that is no journal, is overwritten only with --force; an empty file
//     or a part of this run's own header (a run killed while creating it)
//     is started again.

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

// errNotJournal is an existing file at the journal path that is not a
// backfill journal.
var errNotJournal = errors.New("not the progress file of a backfill")

// errPreReleaseJournal is a journal of version 1, which only development
// builds before 0.1.0 wrote: refused, not migrated.
var errPreReleaseJournal = errors.New("the progress file of a development build before 0.1.0")

// changedError is a journal path that changed between its check and its
// open: another process is at work there.
type changedError struct{ path string }

func (e *changedError) Error() string {
	return fmt.Sprintf("progress file %s changed while it was opened (another process is using the path); refusing to use it", e.path)
}

// journalOpenHook, if set, runs between the journal's lstat and its open:
// tests swap the file there.
var journalOpenHook func()

// maxHeaderLine bounds what is read of a file's first line to tell a
// journal of other arguments from a file that is no journal.
const maxHeaderLine = 1 << 20

// checkOutput refuses an --output that exists as something other than a
// regular file (with --force too), and an existing one without --force.
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

// openJournalFile opens the journal at path for a run of args (see the
// rules above), positioned at its start: a journal of args as it is, or
// an empty file to start again.
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
	// Mode 0600 as the output, root's for the directory's owner, never
	// through a link nor blocking on a FIFO (safefile.Create).
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

// reuseOrRestart decides what becomes of the existing regular file f of
// size bytes: kept as the journal of args, emptied to start again, or
// refused (errJournalArgs, errNotJournal) without --force.
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

// journalVersionOf is the version of the journal whose header is f's
// first line: 0 when it is no journal header.
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
