package config

import (
	"fmt"
	"io"
	"io/fs"
	"time"
)

// Bounds on the files the exporter reads at start and on every reload.
const (
	// MaxConfigFileSize caps the configuration file. A real one is a few
	// KiB; 1 MiB leaves room for thousands of projects while keeping the
	// YAML decoder's memory (several times the file size) small.
	MaxConfigFileSize = 1 << 20
	// FileReadTimeout bounds the read of one configuration or key file.
	// Only special files could block (they are refused before any read)
	// or a hung network file system; past it the read is abandoned and
	// the load fails, so a reload cannot hang.
	FileReadTimeout = 5 * time.Second
)

// readBounded reads the regular file at path, at most limit bytes, within
// FileReadTimeout. A FIFO, device, socket or directory is refused without
// reading: /dev/zero would never end, a FIFO would block until a writer
// came. what names the setting the path came from, for the messages.
func readBounded(path, what string, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	ch := make(chan result, 1) // buffered: an abandoned read still ends
	go func() {
		b, err := readRegular(path, what, limit)
		ch <- result{b, err}
	}()
	t := time.NewTimer(FileReadTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.data, r.err
	case <-t.C:
		return nil, fmt.Errorf("%s %s: reading did not finish within %s", what, path, FileReadTimeout)
	}
}

// tooLargeError is a file over its size bound; size is -1 when the file
// grew past the bound while it was read.
type tooLargeError struct {
	what, path  string
	size, limit int64
}

func (e *tooLargeError) Error() string {
	if e.size < 0 {
		return fmt.Sprintf("%s %s is more than the %d bytes allowed", e.what, e.path, e.limit)
	}
	return fmt.Sprintf("%s %s is %d bytes, more than the %d allowed", e.what, e.path, e.size, e.limit)
}

func readRegular(path, what string, limit int64) ([]byte, error) {
	// Non-blocking open: opening a FIFO for reading would otherwise wait
	// for a writer before the type check below could refuse it.
	f, err := openNoBlock(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err) // *PathError names the file
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s is not a regular file (%s); refusing to read it", what, path, fileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, &tooLargeError{what, path, fi.Size(), limit}
	}
	// The file may grow between Stat and the read: never take more than
	// limit+1 bytes whatever it does.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", what, path, err)
	}
	if int64(len(b)) > limit {
		return nil, &tooLargeError{what, path, -1, limit}
	}
	return b, nil
}

func fileKind(m fs.FileMode) string {
	switch {
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
