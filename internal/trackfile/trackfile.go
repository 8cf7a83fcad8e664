// Package trackfile reads and appends the tracked-jobs file: one job id a line, "#" comments, appended by
// `jobs create --track` and re-read by the exporter. A last line without newline may be an append in
// progress and is ignored. Appends take an exclusive flock, reads a shared one, so no half line is seen.
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

// MaxFileSize (about 80 000 ids) keeps a huge file from being read into memory on every refresh.
const MaxFileSize = 16 << 20

const role = "tracked-jobs file"

// ValidateID reports why id ("project/job" or a bare job id) cannot be a line; "#" would read as a comment.
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

// Append adds id once, synced, creating the file (safefile.Create: no link, no FIFO) but not its directory.
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
		// A fragment could read as another id.
		_ = f.Truncate(int64(len(data)))
		return fmt.Errorf("tracked-jobs file %s: writing: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("tracked-jobs file %s: syncing: %w", path, err)
	}
	if len(data) == 0 {
		syncDir(filepath.Dir(path))
	}
	return nil
}

// openLocked reopens when an editor's rename replaced the file between open and lock, leaving an orphan locked.
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

// Read returns the ids in path each once; a missing file is none, as the exporter may start before the first job.
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
