// Package trackfile reads and appends the tracked-jobs file: a plain text
// file of agent job ids, one per line, that `mintlify_exporter jobs create
// --track FILE` appends to and the exporter re-reads on every refresh.
//
// Format: one id per line; surrounding spaces and a CR before the LF are
// dropped; blank lines and lines starting with "#" are skipped, as are
// lines that are not a valid id (see ValidateID). A last line without a
// terminating newline is ignored: it may be an append still in progress.
// Editors normally end files with a newline; Append adds one before its own
// line when a hand-edited file lacks it, so ids never run together.
//
// Appends take an exclusive flock(2) on the file, readers a shared one, so
// a reader never sees half a line and two concurrent appends of the same
// id write it once. On systems without flock the file is used unlocked:
// appends are still single writes with O_APPEND, but two writers of the
// same id may both add it (Read de-duplicates).
package trackfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mintlify-exporter/mintlify_exporter/internal/mintlify"
	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

// MaxFileSize bounds what Read and Append will load: about 80 000 ids of
// the maximum length. A larger file is refused rather than read into
// memory on every refresh.
const MaxFileSize = 16 << 20

// role names the file in the messages of safefile.
const role = "tracked-jobs file"

// ValidateID reports why id cannot be stored in the file, or nil. An id
// (a line: "project_id/job_id" or a bare job id) must not start with "#"
// (it would read as a comment), and each of its one or two parts must
// pass ids.Check (bounded length, valid UTF-8, no whitespace, control
// character, dot segment or further slash...).
func ValidateID(id string) error {
	if strings.HasPrefix(id, "#") {
		return fmt.Errorf("job id %q starts with '#', which marks a comment", id)
	}
	p, j, scoped := strings.Cut(id, "/")
	if !scoped {
		return mintlify.CheckID(id)
	}
	if err := mintlify.CheckID(p); err != nil {
		return fmt.Errorf("project part of %q: %w", id, err)
	}
	if err := mintlify.CheckID(j); err != nil {
		return fmt.Errorf("job part of %q: %w", id, err)
	}
	return nil
}

// Append adds id to the file at path, creating the file if needed but not
// its directory (safefile.Create: mode 0600, root's for the directory's
// owner; a symbolic link or a FIFO is refused). An id already in the file is not added
// again. The line is written with a single append and synced to disk
// before Append returns.
func Append(path, id string) (err error) {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("tracked-jobs file %s: %w", path, err)
	}
	f, err := openLocked(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeUnlock(f); cerr != nil && err == nil {
			err = fmt.Errorf("tracked-jobs file %s: %w", path, cerr)
		}
	}()

	data, err := safefile.ReadAll(f, role, MaxFileSize)
	if err != nil {
		return err // names the file
	}
	for _, have := range parse(data) {
		if have == id {
			return nil
		}
	}
	line := id + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		line = "\n" + line
	}
	n, err := f.Write([]byte(line))
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		// Take back a partial line: a fragment could read as another id.
		_ = f.Truncate(int64(len(data)))
		return fmt.Errorf("tracked-jobs file %s: writing: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("tracked-jobs file %s: syncing: %w", path, err)
	}
	if len(data) == 0 {
		// The file may be new: make its directory entry durable too.
		syncDir(filepath.Dir(path))
	}
	return nil
}

// openLocked opens path for appending and reading and takes the exclusive
// lock. If the file was replaced (an editor's save renames a new file over
// the old one) between open and lock, the lock is on an orphan: reopen.
func openLocked(path string) (*os.File, error) {
	for attempt := 0; ; attempt++ {
		f, err := safefile.Create(path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				dir := filepath.Dir(path)
				if _, serr := os.Stat(dir); serr != nil {
					return nil, fmt.Errorf("tracked-jobs file %s: directory %s does not exist (it is not created automatically)", path, dir)
				}
			}
			return nil, fmt.Errorf("tracked-jobs file: %w", err)
		}
		if err := safefile.Lock(f, true); err != nil {
			f.Close()
			return nil, fmt.Errorf("tracked-jobs file %s: locking: %w", path, err)
		}
		fi, ferr := f.Stat()
		pi, perr := os.Lstat(path)
		if ferr == nil && perr == nil && os.SameFile(fi, pi) {
			return f, nil
		}
		_ = closeUnlock(f)
		if attempt >= 10 {
			return nil, fmt.Errorf("tracked-jobs file %s: the file keeps being replaced while locking it", path)
		}
	}
}

func closeUnlock(f *os.File) error {
	uerr := safefile.Unlock(f)
	cerr := f.Close()
	return errors.Join(uerr, cerr)
}

func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync() // best effort: some filesystems refuse fsync on a directory
	d.Close()
}

// Read returns the ids in the file at path, in file order, each once. A
// missing file is an empty list, not an error: the exporter may start
// before the first job is created. Anything but a regular file (a FIFO
// would block the refresh until a writer came, a device would never end)
// is refused before it is read or locked, and so is a file over
// MaxFileSize.
func Read(path string) ([]string, error) {
	f, err := safefile.Open(path, role, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err // names the file
	}
	if err := safefile.Lock(f.OS(), false); err != nil {
		f.Close()
		return nil, fmt.Errorf("tracked-jobs file %s: locking: %w", path, err)
	}
	// Under the lock, from the start, its size checked again.
	data, rerr := f.ReadAll()
	cerr := closeUnlock(f.OS())
	if rerr != nil {
		return nil, rerr
	}
	if cerr != nil {
		return nil, fmt.Errorf("tracked-jobs file %s: %w", path, cerr)
	}
	return parse(data), nil
}

// parse returns the valid ids of complete lines, de-duplicated, in order.
func parse(data []byte) []string {
	var ids []string
	seen := map[string]bool{}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // no newline yet: possibly a write in progress
		}
		line := strings.TrimSpace(string(data[:i]))
		data = data[i+1:]
		if line == "" || strings.HasPrefix(line, "#") || ValidateID(line) != nil || seen[line] {
			continue
		}
		seen[line] = true
		ids = append(ids, line)
	}
	return ids
}
