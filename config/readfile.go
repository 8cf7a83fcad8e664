package config

import (
	"time"

	"github.com/mintlify-exporter/mintlify_exporter/internal/safefile"
)

const (
	// MaxConfigFileSize: the YAML decoder's memory is several times the file size.
	MaxConfigFileSize = 1 << 20
	// FileReadTimeout bounds one file read, so a hung network file system cannot hang a reload.
	FileReadTimeout = 5 * time.Second
)

func readBounded(path, what string, limit int64) ([]byte, error) {
	return safefile.ReadWithin(path, what, limit, FileReadTimeout)
}
