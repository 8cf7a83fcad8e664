package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/mintlify-exporter/mintlify_exporter/internal/atomicfile"
	"github.com/mintlify-exporter/mintlify_exporter/internal/filelock"
)

// Lock takes the ledger's lock and returns its release.
func (l *Ledger) Lock() (func(), error) {
	if err := os.MkdirAll(filepath.Dir(l.lock), 0o750); err != nil {
		return nil, err
	}
	if err := atomicfile.CheckTarget(l.lock); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(l.lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := filelock.Lock(f, true); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = filelock.Unlock(f); f.Close() }, nil
}

// Fingerprint names a key without revealing it: what the ledger and the
// state file store. It survives a rename of the key in the configuration.
func Fingerprint(key string) string {
	sum := sha256.Sum256([]byte("mintlify_exporter key fingerprint\x00" + key))
	return hex.EncodeToString(sum[:8])
}
