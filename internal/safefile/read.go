package safefile

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// NotRegularError is a path that names something other than a regular file.
type NotRegularError struct {
	Role, Path, Op string
	Mode           fs.FileMode
}

func (e *NotRegularError) Error() string {
	op, name := cmp.Or(e.Op, "read"), e.Path
	if e.Role != "" {
		name = e.Role + " " + name
	}
	return fmt.Sprintf("%s is not a regular file (%s); refusing to %s it", name, Kind(e.Mode), op)
}

// TooLargeError is a file over its cap; Size is -1 when it grew past the cap while read.
type TooLargeError struct {
	Role, Path  string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s %s is more than the %d bytes allowed", e.Role, e.Path, e.Limit)
	}
	return fmt.Sprintf("%s %s is %d bytes, more than the %d allowed", e.Role, e.Path, e.Size, e.Limit)
}

// Kind names the type of file m describes, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// Read returns the regular file at path, at most limit bytes; role ("config file") names it in errors.
func Read(path, role string, limit int64) ([]byte, error) {
	f, err := Open(path, role, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll()
}

var read = Read

// ReadWithin is Read abandoned after timeout, so a hung network file system cannot hang a reload.
func ReadWithin(path, role string, limit int64, timeout time.Duration) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	ch := make(chan result, 1) // buffered: an abandoned read still ends
	read := read
	go func() {
		b, err := read(path, role, limit)
		ch <- result{b, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.data, r.err
	case <-t.C:
		return nil, fmt.Errorf("%s %s: reading did not finish within %s", role, path, timeout)
	}
}

// File is a regular file opened by Open, within its cap when opened.
type File struct {
	f          *os.File
	path, role string
	limit      int64
}

// Open opens path without blocking and refuses, from fstat, a non-regular file or one over limit.
func Open(path, role string, limit int64) (*File, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", role, err) // *PathError names the file
	}
	if err := check(f, path, role, limit); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, path: path, role: role, limit: limit}, nil
}

func check(f *os.File, path, role string, limit int64) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", role, err)
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Role: role, Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > limit {
		return &TooLargeError{Role: role, Path: path, Size: fi.Size(), Limit: limit}
	}
	return nil
}

// OS is the underlying file, e.g. to lock it; reading it directly skips the cap.
func (f *File) OS() *os.File { return f.f }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadAll reads the file whole from its start, checking the size again (it may have changed since Open).
func (f *File) ReadAll() ([]byte, error) { return readAll(f.f, f.path, f.role, f.limit) }

// ReadAll reads f whole from offset 0 with the checks of Open, for a file the caller opened itself.
func ReadAll(f *os.File, role string, limit int64) ([]byte, error) {
	return readAll(f, f.Name(), role, limit)
}

func readAll(f *os.File, path, role string, limit int64) ([]byte, error) {
	if err := check(f, path, role, limit); err != nil {
		return nil, err
	}
	// The file may grow after the fstat: never take more than limit+1 bytes.
	b, err := io.ReadAll(io.NewSectionReader(f, 0, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", role, path, err)
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Role: role, Path: path, Size: -1, Limit: limit}
	}
	return b, nil
}

// Reader reads from the current offset, failing with a *TooLargeError past the cap.
func (f *File) Reader() io.Reader {
	return &capped{f: f, r: io.LimitReader(f.f, f.limit+1)}
}

type capped struct {
	f    *File
	r    io.Reader
	read int64
	err  error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	if over := c.read + int64(n) - c.f.limit; over > 0 {
		n -= int(over)
		c.err = &TooLargeError{Role: c.f.role, Path: c.f.path, Size: -1, Limit: c.f.limit}
		c.read += int64(n)
		return n, c.err
	}
	c.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = fmt.Errorf("reading %s %s: %w", c.f.role, c.f.path, err)
		return n, c.err
	}
	return n, err
}
