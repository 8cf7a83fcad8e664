// Package atomicfile writes a file whole or not at all: the exporter's
// state file and the backfill's output are read by other processes (a
// restart, promtool) that must never see half of one.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write calls write on a temporary file next to path, syncs it, renames it
// to path and syncs the directory, so that path holds either what it held
// before or all of what write wrote, across a crash too. The temporary
// file is removed if anything fails.
func Write(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // harmless after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself survives a crash
		d.Close()
	}
	return nil
}
