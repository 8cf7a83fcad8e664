package config

import (
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
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
// FileReadTimeout (see safefile: a FIFO, device, socket or directory
// is refused without reading, and so is a file over limit). what names
// the setting the path came from, for the messages.
func readBounded(path, what string, limit int64) ([]byte, error) {
	return safefile.ReadWithin(path, what, limit, FileReadTimeout)
}
