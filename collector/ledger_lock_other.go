//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos)

package collector

import "os"

// Without flock(2) the shared ledger is not locked: the exporter and the
// backfill may then miss each other's latest requests.
func flock(*os.File) error   { return nil }
func funlock(*os.File) error { return nil }
